"""Services: the write side. Each owns its transaction and enqueues tasks on commit."""
