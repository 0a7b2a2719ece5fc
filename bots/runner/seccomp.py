"""The seccomp filter of the bot sandbox, as the classic-BPF program bubblewrap loads.

``bwrap --seccomp FD`` reads an array of ``struct sock_filter`` (8 bytes each: u16 code,
u8 jt, u8 jf, u32 k, in the machine's byte order) from FD and installs it just before it
runs the bot, so the bot and everything it starts live under it and cannot remove it.

The program is a deny list, generated here with the standard library alone (no
libseccomp binding to install; tests/bots/test_seccomp.py checks every syscall number
below against libseccomp's own tables where libseccomp is present):

1. a syscall from another ABI than the native one (i386 ``int 0x80`` on x86-64) kills
   the process, and so does an x32 syscall (numbers with bit 30 set);
2. ``clone`` with any namespace flag fails with EPERM; ``clone3``, whose flags live in
   memory BPF cannot read, fails with ENOSYS (the C library then falls back to
   ``clone``, so threads and ``fork`` still work);
3. the syscalls of ``DENIED`` fail with EPERM: every socket call (a bot has no network
   and needs no socket at all), tracing and reading other processes' memory, mounts and
   namespaces, keyrings, BPF, perf, userfaultfd, io_uring (it can open sockets without
   the socket syscall), kernel modules, clocks, reboot and the like, and System V IPC
   (shared memory, semaphores, message queues: a segment outlives its detachment, so
   its pages are held outside every address space the rlimits count; x86-64 and arm64
   have no multiplexing ``ipc()`` call, and the i386 ABI that has one is killed above);
   For the java runtime alone, ``socketpair`` of the AF_UNIX family is let through
   (``allow_unix_socketpair``: the JVM needs one to read files);
4. ``memfd_create`` fails with EPERM too unless the caller says the seat's memory is
   bounded by a control group (``allow_memfd=True``, bots.runner.cgroups), which counts
   a memfd's pages; ``memfd_secret`` is always denied (no bot needs memory taken out
   of the kernel's own mappings);
5. everything else is allowed.

A deny list can miss a syscall added to a later kernel; the other layers (namespaces, a
separate unprivileged user, rlimits, the seat's control group) are there for that.
"""

from __future__ import annotations

import errno
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
X32_SYSCALL_BIT = 0x40000000

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

# classic BPF opcodes
BPF_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
BPF_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
BPF_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
BPF_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
BPF_RET_K = 0x06  # BPF_RET | BPF_K

# offsets in struct seccomp_data
OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0_LOW = 16  # little-endian: the low 32 bits of args[0]

AF_UNIX = 1

CLONE_NEWTIME = 0x00000080
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NAMESPACE_FLAGS = (
    CLONE_NEWTIME
    | CLONE_NEWNS
    | CLONE_NEWCGROUP
    | CLONE_NEWUTS
    | CLONE_NEWIPC
    | CLONE_NEWUSER
    | CLONE_NEWPID
    | CLONE_NEWNET
)

DENIED = (
    # sockets: none at all
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    # other processes
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    # mounts and namespaces
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "mount_setattr",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "name_to_handle_at",
    "open_by_handle_at",
    # kernel facilities a bot has no use for
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "fanotify_init",
    "personality",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "syslog",
    "quotactl",
    "quotactl_fd",
    "lookup_dcookie",
    "nfsservctl",
    "uselib",
    "ioperm",
    "iopl",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "vhangup",
    # System V IPC: memory held outside the process (and no bot needs it)
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "memfd_secret",
)

MEMFD_SYSCALL = "memfd_create"
"""Denied unless the seat's memory is bounded by its control group (``allow_memfd``)."""

SYSCALLS: dict[str, dict[str, int]] = {
    "x86_64": {
        "socket": 41,
        "socketpair": 53,
        "connect": 42,
        "bind": 49,
        "listen": 50,
        "accept": 43,
        "accept4": 288,
        "ptrace": 101,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "kcmp": 312,
        "pidfd_getfd": 438,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "chroot": 161,
        "unshare": 272,
        "setns": 308,
        "mount_setattr": 442,
        "move_mount": 429,
        "open_tree": 428,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "name_to_handle_at": 303,
        "open_by_handle_at": 304,
        "keyctl": 250,
        "add_key": 248,
        "request_key": 249,
        "bpf": 321,
        "perf_event_open": 298,
        "userfaultfd": 323,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "fanotify_init": 300,
        "personality": 135,
        "kexec_load": 246,
        "kexec_file_load": 320,
        "init_module": 175,
        "finit_module": 313,
        "delete_module": 176,
        "reboot": 169,
        "swapon": 167,
        "swapoff": 168,
        "acct": 163,
        "syslog": 103,
        "quotactl": 179,
        "quotactl_fd": 443,
        "lookup_dcookie": 212,
        "nfsservctl": 180,
        "uselib": 134,
        "ioperm": 173,
        "iopl": 172,
        "settimeofday": 164,
        "clock_settime": 227,
        "clock_adjtime": 305,
        "adjtimex": 159,
        "sethostname": 170,
        "setdomainname": 171,
        "vhangup": 153,
        "shmget": 29,
        "shmat": 30,
        "shmdt": 67,
        "shmctl": 31,
        "semget": 64,
        "semop": 65,
        "semtimedop": 220,
        "semctl": 66,
        "msgget": 68,
        "msgsnd": 69,
        "msgrcv": 70,
        "msgctl": 71,
        "memfd_secret": 447,
        "memfd_create": 319,
        "clone": 56,
        "clone3": 435,
    },
    "aarch64": {
        "socket": 198,
        "socketpair": 199,
        "connect": 203,
        "bind": 200,
        "listen": 201,
        "accept": 202,
        "accept4": 242,
        "ptrace": 117,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "kcmp": 272,
        "pidfd_getfd": 438,
        "mount": 40,
        "umount2": 39,
        "pivot_root": 41,
        "chroot": 51,
        "unshare": 97,
        "setns": 268,
        "mount_setattr": 442,
        "move_mount": 429,
        "open_tree": 428,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "name_to_handle_at": 264,
        "open_by_handle_at": 265,
        "keyctl": 219,
        "add_key": 217,
        "request_key": 218,
        "bpf": 280,
        "perf_event_open": 241,
        "userfaultfd": 282,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "fanotify_init": 262,
        "personality": 92,
        "kexec_load": 104,
        "kexec_file_load": 294,
        "init_module": 105,
        "finit_module": 273,
        "delete_module": 106,
        "reboot": 142,
        "swapon": 224,
        "swapoff": 225,
        "acct": 89,
        "syslog": 116,
        "quotactl": 60,
        "quotactl_fd": 443,
        "lookup_dcookie": 18,
        "nfsservctl": 42,
        # no uselib, ioperm, iopl on arm64
        "settimeofday": 170,
        "clock_settime": 112,
        "clock_adjtime": 266,
        "adjtimex": 171,
        "sethostname": 161,
        "setdomainname": 162,
        "vhangup": 58,
        "shmget": 194,
        "shmat": 196,
        "shmdt": 197,
        "shmctl": 195,
        "semget": 190,
        "semop": 193,
        "semtimedop": 192,
        "semctl": 191,
        "msgget": 186,
        "msgsnd": 189,
        "msgrcv": 188,
        "msgctl": 187,
        "memfd_secret": 447,
        "memfd_create": 279,
        "clone": 220,
        "clone3": 435,
    },
}
"""Syscall numbers by machine (``platform.machine()``): the denied ones, memfd_create,
clone and clone3."""

AUDIT_ARCHES = {"x86_64": AUDIT_ARCH_X86_64, "aarch64": AUDIT_ARCH_AARCH64}


class SeccompUnsupportedError(RuntimeError):
    """No filter is known for this machine's architecture."""


def machine_name() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def _instruction(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def filter_program(
    machine: str | None = None, *, allow_memfd: bool = False, allow_unix_socketpair: bool = False
) -> bytes:
    """The filter for ``machine`` (default: this one), ready for ``bwrap --seccomp``;
    ``allow_memfd`` lets ``memfd_create`` through (only where a control group bounds the
    seat's memory); ``allow_unix_socketpair`` lets ``socketpair(AF_UNIX, ...)`` through
    (the java runtime: the JVM's file channels make one at start; a connected pair of
    local sockets reaches nothing outside the process, like a pipe), every other
    family still failing with EPERM."""
    machine = machine or machine_name()
    numbers = SYSCALLS.get(machine)
    if numbers is None:
        raise SeccompUnsupportedError(
            f"no seccomp filter for the {machine} architecture (known: {', '.join(SYSCALLS)})"
        )
    deny_eperm = SECCOMP_RET_ERRNO | errno.EPERM
    deny_enosys = SECCOMP_RET_ERRNO | errno.ENOSYS
    program = [
        _instruction(BPF_LD_W_ABS, 0, 0, OFFSET_ARCH),
        _instruction(BPF_JEQ_K, 1, 0, AUDIT_ARCHES[machine]),
        _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        _instruction(BPF_LD_W_ABS, 0, 0, OFFSET_NR),
    ]
    if machine == "x86_64":
        program += [
            _instruction(BPF_JGE_K, 0, 1, X32_SYSCALL_BIT),
            _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        ]
    program += [
        # clone: refuse namespace flags, allow the rest
        _instruction(BPF_JEQ_K, 0, 4, numbers["clone"]),
        _instruction(BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW),
        _instruction(BPF_JSET_K, 0, 1, CLONE_NAMESPACE_FLAGS),
        _instruction(BPF_RET_K, 0, 0, deny_eperm),
        _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        # clone3: ENOSYS, so that the C library falls back to clone
        _instruction(BPF_JEQ_K, 0, 1, numbers["clone3"]),
        _instruction(BPF_RET_K, 0, 0, deny_enosys),
    ]
    denied = DENIED if allow_memfd else (*DENIED, MEMFD_SYSCALL)
    for name in denied:
        number = numbers.get(name)
        if number is None:
            continue
        if name == "socketpair" and allow_unix_socketpair:
            program += [
                _instruction(BPF_JEQ_K, 0, 4, number),
                _instruction(BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW),
                _instruction(BPF_JEQ_K, 0, 1, AF_UNIX),
                _instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
                _instruction(BPF_RET_K, 0, 0, deny_eperm),
            ]
            continue
        program += [
            _instruction(BPF_JEQ_K, 0, 1, number),
            _instruction(BPF_RET_K, 0, 0, deny_eperm),
        ]
    program.append(_instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    return b"".join(program)
