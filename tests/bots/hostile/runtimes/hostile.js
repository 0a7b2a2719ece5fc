// A Node.js bot that attacks the sandbox; the attack is read from the file `mode` beside
// it, and it says what happened on stderr, one line per event, then plays on with the
// Node starter kit's helper. Every attack is bounded.
//
// network  TCP to PostgreSQL's and Redis's ports, UDP, a name lookup: each must fail
// files    the host's files (/etc/passwd, /root, /work, ...), writes outside /tmp, a shell
// memory   64 MiB buffers written until one fails (at most 4 GiB)
// threads  worker threads until one cannot start (at most 64), before the bot says ready;
//          the threads seen reported
// open_files  files opened and kept open until one cannot be (at most 400)
"use strict";

const fs = require("fs");
const kingbot = require("./kingbot");

const mode = fs.readFileSync("mode", "utf8").trim();

function report(tag, text) {
  process.stderr.write(`${tag} ${text}\n`);
}

function threadsNow() {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  return Number(/Threads:\s+(\d+)/.exec(status)[1]);
}

function attack(done) {
  if (mode === "network") {
    const net = require("net");
    for (const port of [5432, 6379]) {
      try {
        const socket = net.connect({ host: "127.0.0.1", port });
        socket.on("connect", () => report("LEAK", `tcp ${port}`));
        socket.on("error", (error) => report("BLOCKED", `tcp ${port} ${error.code}`));
      } catch (error) {
        report("BLOCKED", `tcp ${port} ${error.code}`);
      }
    }
    try {
      const dgram = require("dgram");
      const socket = dgram.createSocket("udp4");
      socket.on("error", (error) => report("BLOCKED", `udp ${error.code}`));
      socket.send("x", 53, "127.0.0.1", (error) => report(error ? "BLOCKED" : "LEAK", `udp ${error && error.code}`));
    } catch (error) {
      report("BLOCKED", `udp ${error.code}`);
    }
    require("dns").lookup("example.com", (error) => report(error ? "BLOCKED" : "LEAK", `dns ${error && error.code}`));
  } else if (mode === "files") {
    for (const path of ["/etc/passwd", "/etc/hostname", "/root", "/work", "/home", "/run", "/sys"]) {
      try {
        fs.statSync(path);
        report("LEAK", path);
      } catch (error) {
        report("BLOCKED", `${path} ${error.code}`);
      }
    }
    for (const path of ["/bot/planted", "/usr/planted"]) {
      try {
        fs.writeFileSync(path, "x");
        report("LEAK", `write ${path}`);
      } catch (error) {
        report("BLOCKED", `write ${path} ${error.code}`);
      }
    }
    try {
      require("child_process").execSync("id", { stdio: "pipe" });
      report("LEAK", "shell");
    } catch (error) {
      report("BLOCKED", `shell ${error.code || error.status}`);
    }
    report("ROOT", fs.readdirSync("/").sort().join(","));
  } else if (mode === "memory") {
    const held = [];
    try {
      while (held.length * 64 < 4096) {
        held.push(Buffer.alloc(64 * 1024 * 1024, 1));
        report("HELD", `${held.length * 64}`);
      }
      report("DONE", `${held.length * 64}`);
    } catch (error) {
      report("LIMIT", `${held.length * 64} ${error.code || error.message}`);
    }
    globalThis.held = held;
  } else if (mode === "open_files") {
    const held = [];
    try {
      while (held.length < 400) {
        held.push(fs.openSync("/dev/null", "r"));
      }
      report("DONE", `${held.length}`);
    } catch (error) {
      report("LIMIT", `${held.length} ${error.code}`);
    }
    report("OPENED", `${held.length}`);
    globalThis.heldFiles = held;
  } else if (mode === "threads") {
    const { Worker } = require("worker_threads");
    let started = 0;
    const spawn = () => {
      if (started >= 64) {
        report("DONE", `${started} threads ${threadsNow()}`);
        done();
        return;
      }
      let worker;
      try {
        worker = new Worker("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)", { eval: true });
      } catch (error) {
        report("LIMIT", `${started} threads ${threadsNow()} ${error.code || error.message}`);
        done();
        return;
      }
      worker.on("error", (error) => {
        report("LIMIT", `${started} threads ${threadsNow()} ${error.code || error.message}`);
        done();
      });
      worker.on("online", () => {
        started += 1;
        report("THREADS", `${threadsNow()}`);
        spawn();
      });
    };
    spawn();
  }
}

function play() {
  let attacked = false;
  kingbot.run((request) => {
    if (!attacked) {
      attacked = true;
      attack(() => {});
    }
    return request.legal[0];
  });
}

if (mode === "threads") {
  attack(play); // before ready: the start-up allowance covers it
} else {
  play();
}
