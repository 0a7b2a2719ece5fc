/* A native bot that attacks the sandbox with raw system calls; what it does is read from
 * the file `mode` beside it (the zip's), and it says what happened on stderr, one line per
 * event (BLOCKED name errno, LEAK name, HELD MiB, LIMIT ..., BEFORE, AFTER), then plays on
 * if it still can (with the C starter kit's helper). Every attack is bounded.
 *
 * calls    socket, socketpair, ptrace, unshare, mount, bpf, io_uring_setup, kexec, keyctl,
 *          and a connection to PostgreSQL's port: each must fail
 * files    the host's files: /etc/passwd, /root, /work, /home, /var/run: none must be there
 * int80    the i386 call gate (int 0x80) from a 64-bit process: the process is killed
 * x32      a syscall of the x32 ABI (bit 30 set): the process is killed
 * memory   64 MiB blocks written until malloc fails (at most 4 GiB)
 * fork     processes until fork fails (at most 200)
 * threads  threads until pthread_create fails (at most 500)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kingbot.h"

static char mode[32];

static void report(const char *tag, const char *name, long value) {
    fprintf(stderr, "%s %s %ld\n", tag, name, value);
    fflush(stderr);
}

static void refused(const char *name, long result) {
    if (result < 0) report("BLOCKED", name, errno);
    else report("LEAK", name, result);
}

static void attack_calls(void) {
    refused("socket", syscall(SYS_socket, AF_INET, SOCK_STREAM, 0));
    int pair[2];
    refused("socketpair", syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, pair));
    refused("ptrace", syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0));
    refused("ptrace_attach", syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, 1, 0, 0));
    refused("unshare", syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */));
    refused("mount", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, 0));
    refused("bpf", syscall(SYS_bpf, 0, 0, 0));
    refused("io_uring_setup", syscall(SYS_io_uring_setup, 8, 0));
    refused("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0));
    refused("kexec_load", syscall(SYS_kexec_load, 0, 0, 0, 0));
    refused("clone_newnet", syscall(SYS_clone, 0x40000000 /* CLONE_NEWNET */ | 17, 0, 0, 0, 0));
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(5432)};
    address.sin_addr.s_addr = htonl(0x7f000001);
    refused("connect", syscall(SYS_connect, 3, &address, sizeof address));
}

static void attack_files(void) {
    const char *paths[] = {"/etc/passwd", "/etc/hostname", "/root", "/work", "/home", "/var/run",
                           "/run", "/sys/fs/cgroup"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        int fd = open(paths[i], O_RDONLY);
        refused(paths[i], fd);
    }
    refused("write /bot", open("/bot/planted", O_WRONLY | O_CREAT, 0644));
    refused("write /usr", open("/usr/planted", O_WRONLY | O_CREAT, 0644));
}

static void attack_int80(void) {
    long result;
    report("BEFORE", "int80", 0);
    __asm__ volatile("int $0x80" : "=a"(result) : "a"(20) /* getpid on i386 */ : "memory");
    report("AFTER", "int80", result);
}

static void attack_x32(void) {
    report("BEFORE", "x32", 0);
    long result = syscall(39 | 0x40000000 /* getpid, x32 */);
    report("AFTER", "x32", result);
}

static void attack_memory(void) {
    size_t held = 0, block = 64u << 20;
    while (held < (4ul << 30)) {
        char *memory = malloc(block);
        if (!memory) {
            report("LIMIT", "malloc_mib", (long)(held >> 20));
            return;
        }
        memset(memory, 1, block);
        held += block;
        report("HELD", "mib", (long)(held >> 20));
    }
    report("DONE", "mib", (long)(held >> 20));
}

static void attack_fork(void) {
    int children = 0;
    for (; children < 200; children++) {
        pid_t pid = fork();
        if (pid < 0) {
            report("LIMIT", "children", children);
            return;
        }
        if (pid == 0) {
            for (;;) pause();
        }
    }
    report("DONE", "children", children);
}

static void *sleeper(void *unused) {
    (void)unused;
    for (;;) pause();
    return NULL;
}

static void attack_threads(void) {
    int threads = 0;
    for (; threads < 500; threads++) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setstacksize(&attributes, 64 * 1024);
        int error = pthread_create(&thread, &attributes, sleeper, NULL);
        pthread_attr_destroy(&attributes);
        if (error != 0) {
            report("LIMIT", "threads", threads);
            return;
        }
    }
    report("DONE", "threads", threads);
}

static int attacked;

static const char *choose(const kb_request *request) {
    if (!attacked) {
        attacked = 1;
        if (strcmp(mode, "calls") == 0) attack_calls();
        else if (strcmp(mode, "files") == 0) attack_files();
        else if (strcmp(mode, "int80") == 0) attack_int80();
        else if (strcmp(mode, "x32") == 0) attack_x32();
        else if (strcmp(mode, "memory") == 0) attack_memory();
        else if (strcmp(mode, "fork") == 0) attack_fork();
        else if (strcmp(mode, "threads") == 0) attack_threads();
    }
    return request->legal[0];
}

int main(void) {
    FILE *file = fopen("mode", "r");
    if (file) {
        if (fscanf(file, "%31s", mode) != 1) mode[0] = '\0';
        fclose(file);
    }
    return kb_run(choose);
}
