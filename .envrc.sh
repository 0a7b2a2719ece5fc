cd /work/wt/analysis && source .venv/bin/activate
export DATABASE_URL=postgres://postgres@127.0.0.1:5432/kl_analysis
export REDIS_URL=redis://127.0.0.1:6379/4
