"""The seccomp filter's program: its syscall numbers agree with libseccomp's tables, and
its shape is what bubblewrap loads. (That it denies what it should is proven in the
sandbox by tests/bots/test_sandbox_security.py.)"""

from __future__ import annotations

import ctypes
import ctypes.util
import struct

import pytest

from bots.runner.seccomp import (
    AUDIT_ARCHES,
    DENIED,
    MEMFD_SYSCALL,
    SECCOMP_RET_ALLOW,
    SECCOMP_RET_KILL_PROCESS,
    SYSCALLS,
    SeccompUnsupportedError,
    filter_program,
)


def _libseccomp() -> ctypes.CDLL:
    path = ctypes.util.find_library("seccomp")
    if path is None:
        pytest.skip("libseccomp is not installed (apt-get install libseccomp2)")
    return ctypes.CDLL(path)


@pytest.mark.parametrize("machine", sorted(SYSCALLS))
def test_syscall_numbers_match_libseccomp(machine: str) -> None:
    resolve = _libseccomp().seccomp_syscall_resolve_name_arch
    resolve.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    resolve.restype = ctypes.c_int
    arch = AUDIT_ARCHES[machine]
    for name in (*DENIED, MEMFD_SYSCALL, "clone", "clone3"):
        expected = resolve(arch, name.encode())
        if expected < 0:  # no such syscall on this architecture
            assert name not in SYSCALLS[machine], name
        else:
            assert SYSCALLS[machine][name] == expected, name


@pytest.mark.parametrize("machine", sorted(SYSCALLS))
def test_program_shape(machine: str) -> None:
    program = filter_program(machine)
    assert len(program) % 8 == 0
    instructions = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    assert len(instructions) < 4096  # the kernel's limit
    # checks the architecture first and kills a foreign one
    assert instructions[0] == (0x20, 0, 0, 4)
    assert instructions[1] == (0x15, 1, 0, AUDIT_ARCHES[machine])
    assert instructions[2] == (0x06, 0, 0, SECCOMP_RET_KILL_PROCESS)
    assert instructions[-1] == (0x06, 0, 0, SECCOMP_RET_ALLOW)
    denied = {k for code, _, _, k in instructions if code == 0x15}
    assert {SYSCALLS[machine][name] for name in DENIED if name in SYSCALLS[machine]} <= denied
    for code, jt, jf, _ in instructions:  # every jump lands inside the program
        if code & 0x07 == 0x05:
            assert jt < len(instructions)
            assert jf < len(instructions)


def test_unknown_architecture() -> None:
    with pytest.raises(SeccompUnsupportedError, match="riscv64"):
        filter_program("riscv64")


def _denied_numbers(program: bytes) -> set[int]:
    """The syscall numbers the program compares against (each followed by its verdict)."""
    instructions = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    return {k for code, _, _, k in instructions if code == 0x15}


@pytest.mark.parametrize("machine", sorted(SYSCALLS))
def test_system_v_ipc_is_always_denied(machine: str) -> None:
    numbers = SYSCALLS[machine]
    ipc = ["shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl"]
    ipc += ["msgget", "msgsnd", "msgrcv", "msgctl"]
    for allow_memfd in (False, True):
        denied = _denied_numbers(filter_program(machine, allow_memfd=allow_memfd))
        assert {numbers[name] for name in ipc} <= denied


@pytest.mark.parametrize("machine", sorted(SYSCALLS))
def test_memfd_only_where_a_control_group_counts_it(machine: str) -> None:
    memfd = SYSCALLS[machine][MEMFD_SYSCALL]
    assert memfd in _denied_numbers(filter_program(machine))
    assert memfd not in _denied_numbers(filter_program(machine, allow_memfd=True))
    assert SYSCALLS[machine]["memfd_secret"] in _denied_numbers(
        filter_program(machine, allow_memfd=True)
    )
