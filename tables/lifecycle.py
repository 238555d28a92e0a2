"""Process lifetime and rank: a child process dies with the process that started it, a
background process steps back behind the ones that serve people (``step_back``), and a process
leading its own session sets its scheduling group's rank (``rank_session``): the web server ahead
of everything else on the machine where it may, the robot process behind it.

A process killed with SIGKILL runs no clean-up, so the processes it started (the robots' Difícil
search processes, gunicorn's web workers) would live on under PID 1: a search process (and
multiprocessing's resource tracker, which ends only when every holder of its pipe is gone) that
nobody asks for work, a web worker that keeps the listening socket. Two guards, both cheap:

- the kernel's parent-death signal (Linux ``prctl(PR_SET_PDEATHSIG)``): sent the moment the
  parent ends. The kernel ties it to the parent *thread* that started the child, so the child must
  be started by a thread that lives as long as the parent wants the child;
- a watchdog thread that ends the child when its parent's pid changes (other systems, and the
  moment between the start and the ``prctl`` call, when the parent may already be gone).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

#: linux/prctl.h
PR_SET_PDEATHSIG = 1


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent ends. False when the
    system has no such thing (only Linux has)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _end(sig: int) -> None:
    os.kill(os.getpid(), sig)
    os._exit(1)  # a signal this process handles or ignores must still end it


def watch_parent(parent_pid: int, sig: int = signal.SIGKILL, interval: float = 1.0) -> None:
    """A daemon thread that sends ``sig`` to this process once its parent is no longer
    ``parent_pid`` (the parent ended: this process was handed to another one)."""

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                _end(sig)
            time.sleep(interval)

    threading.Thread(target=watch, daemon=True, name="corazones-parent-watch").start()


def die_with_parent(parent_pid: int, sig: int = signal.SIGKILL, *, watchdog: bool = True,
                    interval: float = 1.0) -> None:
    """Call first thing in a child process: it ends with ``sig`` when ``parent_pid`` ends.

    With ``watchdog`` a thread checks the parent every ``interval`` seconds as well (for
    processes that have no loop of their own doing so)."""
    set_parent_death_signal(sig)
    if os.getppid() != parent_pid:  # the parent ended before the signal was asked for
        _end(sig)
    if watchdog:
        watch_parent(parent_pid, sig, interval)


def step_back(nice: int) -> None:
    """Give the cores to the processes that serve people first: ``nice`` steps nicer, in a
    scheduling group of this process's own.

    Linux with autogroups (``kernel.sched_autogroup_enabled``, on by default in many kernels)
    shares the cores between sessions first and honours niceness only inside a session. A
    search process niced inside its robot process's session, itself a session apart from the
    web server's (honcho, systemd and deploy/stack.py start each process in its own), still got
    a whole group's share: at 1-3 s a decision the web workers waited on the run queue longer
    than they ran (docs/RELIABILITY_RUNS.md, run U). In a session of its own whose group carries the
    same niceness, the process steps back against every other group as well. (Under systemd
    with the cpu controller, units are groups too, weighed by their ``CPUWeight=``:
    deploy/systemd gives the robots' unit a lower one.)

    Its threads also take the idle policy (``SCHED_IDLE``): they run on a core nobody else
    wants, and any other thread that wakes takes the core from them at once instead of waiting
    for their turn to end. At 1-3 s a decision the people's actions took about 12 ms less at
    p95 and a Difícil card about 90 ms more at p50 (docs/RELIABILITY_RUNS.md, run X). Only for
    processes that hold no lock anyone waits on (a search computes from a view it was given)."""
    os.nice(nice)
    _all_threads_idle()
    try:
        os.setsid()  # not the leader of its process group: a child started by another process
        _set_group_nice(nice)
    except OSError:
        pass


def _all_threads_idle() -> None:
    """The idle policy for every thread of this process (those started before this call, such
    as the parent watchdog, and through inheritance those started after)."""
    try:
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for thread in threads:
        try:
            os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
        except (AttributeError, OSError):  # not Linux, or a thread that has just ended
            pass


def rank_session(nice: int) -> bool:
    """Put the scheduling group of this process's session ``nice`` steps ahead of the others
    (below 0) or behind them (above 0). True when it did.

    Only a process leading its own session changes its group (honcho, systemd and
    deploy/stack.py start each process so); one started from a shell shares the shell's session,
    which is not its to change. The web server's master steps forward before it starts its
    workers (they share its session, so its group): at 1-3 s a decision on two cores its workers
    then waited on the run queue about half as long (docs/RELIABILITY_RUNS.md, run W). A group ahead
    of the others needs ``CAP_SYS_NICE`` (root has it); without it nothing changes. The robot
    process steps back (which needs no privilege): it holds table locks, so it keeps the
    ordinary policy, unlike the searches (``step_back``), and only yields the cores to the web
    first; people's actions took 17 ms less at p95 at that pace (docs/RELIABILITY_RUNS.md,
    run Z)."""
    try:
        if os.getsid(0) != os.getpid():
            return False
        _set_group_nice(nice)
    except OSError:
        return False
    return True


def _set_group_nice(nice: int) -> None:
    """The niceness of the scheduling group of this process's session (OSError where there are
    no autogroups, or without the right to it)."""
    with open("/proc/self/autogroup", "w") as group:
        group.write(str(nice))
