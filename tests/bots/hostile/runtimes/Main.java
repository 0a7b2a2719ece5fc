// A Java bot that attacks the sandbox; the attack is read from the file `mode` beside it,
// and it says what happened on stderr, one line per event, then plays on with the Java
// starter kit's helper (KingBot.java). Every attack is bounded.
//
// network  TCP to PostgreSQL's and Redis's ports, UDP, a name lookup: each must fail
// files    the host's files (/etc/passwd, /root, /work, ...), writes outside /tmp, a process
// memory   64 MiB arrays until the heap is full (at most 4 GiB)
// threads  sleeping threads until one cannot start (at most 500)

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public final class Main {
    static String mode = "";
    static boolean attacked;
    static final List<Object> HELD = new ArrayList<>();

    static void report(String tag, String text) {
        System.err.println(tag + " " + text);
        System.err.flush();
    }

    static String why(Throwable error) {
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }

    static void attack() {
        if (mode.equals("network")) {
            for (int port : new int[] {5432, 6379}) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                    report("LEAK", "tcp " + port);
                } catch (Throwable error) {
                    report("BLOCKED", "tcp " + port + " " + why(error));
                }
            }
            try (DatagramSocket socket = new DatagramSocket()) {
                socket.send(new DatagramPacket(new byte[1], 1, InetAddress.getLoopbackAddress(), 53));
                report("LEAK", "udp");
            } catch (Throwable error) {
                report("BLOCKED", "udp " + why(error));
            }
            try {
                InetAddress.getByName("example.com");
                report("LEAK", "dns");
            } catch (Throwable error) {
                report("BLOCKED", "dns " + why(error));
            }
        } else if (mode.equals("files")) {
            for (String path : new String[] {"/etc/passwd", "/etc/hostname", "/root", "/work", "/home", "/run", "/sys"}) {
                if (Files.exists(Path.of(path))) {
                    report("LEAK", path);
                } else {
                    report("BLOCKED", path);
                }
            }
            for (String path : new String[] {"/bot/planted", "/usr/planted"}) {
                try {
                    Files.writeString(Path.of(path), "x", StandardCharsets.UTF_8);
                    report("LEAK", "write " + path);
                } catch (Throwable error) {
                    report("BLOCKED", "write " + path + " " + why(error));
                }
            }
            try {
                new ProcessBuilder("/bin/sh", "-c", "id").start().waitFor();
                report("LEAK", "shell");
            } catch (Throwable error) {
                report("BLOCKED", "shell " + why(error));
            }
        } else if (mode.equals("memory")) {
            try {
                while (HELD.size() * 64 < 4096) {
                    long[] block = new long[8 * 1024 * 1024];
                    java.util.Arrays.fill(block, 1L);
                    HELD.add(block);
                    report("HELD", String.valueOf(HELD.size() * 64));
                }
                report("DONE", String.valueOf(HELD.size() * 64));
            } catch (OutOfMemoryError error) {
                int held = HELD.size() * 64;
                HELD.clear();
                report("LIMIT", held + " " + why(error));
            }
        } else if (mode.equals("threads")) {
            int started = 0;
            try {
                for (; started < 500; started++) {
                    Thread thread = new Thread(null, () -> {
                        try {
                            Thread.sleep(Long.MAX_VALUE);
                        } catch (InterruptedException stop) {
                            return;
                        }
                    }, "sleeper", 64 * 1024);
                    thread.setDaemon(true);
                    thread.start();
                }
                report("DONE", started + " threads");
            } catch (Throwable error) {
                report("LIMIT", started + " threads " + why(error));
            }
        }
    }

    public static void main(String[] args) throws IOException {
        mode = Files.readString(Path.of("mode"), StandardCharsets.UTF_8).trim();
        KingBot.run(request -> {
            if (!attacked) {
                attacked = true;
                attack();
            }
            return request.legal.get(0);
        });
    }
}
