"""What appending to a file costs the writer, with its pages left in the page cache or dropped
behind as the gateway's access log and usage journal do (src/core/drop_behind.hpp).

Writes --mib MiB in 256 KiB appends (about one ledger batch) to a new file, once keeping every
page cached and once starting each megabyte's writeback and dropping the megabyte before, and
prints the writer's system CPU per 4 KiB appended, several rounds, alternating. The file that
keeps its pages is kept until the end of the run, as a log is, so that its cache keeps growing
into memory it has not used before; on a virtual machine that hands free memory back to its host
that is where the cost is.

Usage: /usr/bin/python3 bench/page_cache_appends.py [--dir .] [--mib 1024] [--rounds 3]"""
import argparse
import ctypes
import os
import resource
import statistics
import tempfile

APPEND = 256 << 10
STEP = 1 << 20  # DropBehind::kStep
SYNC_FILE_RANGE_WAIT_BEFORE, SYNC_FILE_RANGE_WRITE, SYNC_FILE_RANGE_WAIT_AFTER = 1, 2, 4

libc = ctypes.CDLL(None, use_errno=True)
libc.sync_file_range.argtypes = (ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint)


def append_file(directory, size, drop):
    """System CPU µs per 4 KiB of `size` bytes appended to a new file; returns it and the path."""
    chunk = b"x" * APPEND
    fd, path = tempfile.mkstemp(prefix="ig-appends-", dir=directory)
    unstarted, cached = 0, 0
    before = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    for done in range(APPEND, size + 1, APPEND):
        os.write(fd, chunk)
        if drop and done - unstarted >= STEP:
            libc.sync_file_range(fd, unstarted, done - unstarted, SYNC_FILE_RANGE_WRITE)
            if unstarted > cached:
                libc.sync_file_range(fd, cached, unstarted - cached, SYNC_FILE_RANGE_WAIT_BEFORE |
                                     SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)
                os.posix_fadvise(fd, cached, unstarted - cached, os.POSIX_FADV_DONTNEED)
                cached = unstarted
            unstarted = done
    spent = resource.getrusage(resource.RUSAGE_SELF).ru_stime - before
    os.close(fd)
    return spent * 1e6 * 4096 / size, path


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", default=".", help="a folder on the disk to measure (not tmpfs)")
    p.add_argument("--mib", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    costs = {"kept": [], "dropped": []}
    paths = []
    try:
        for _ in range(args.rounds):
            for mode in ("kept", "dropped"):
                cost, path = append_file(args.dir, args.mib << 20, mode == "dropped")
                if mode == "kept":
                    paths.append(path)
                else:
                    os.unlink(path)
                costs[mode].append(cost)
                print("  %-8s %.2f us of system time per 4 KiB" % (mode, cost), flush=True)
    finally:
        for path in paths:
            os.unlink(path)
    kept, dropped = statistics.median(costs["kept"]), statistics.median(costs["dropped"])
    print("medians: pages kept %.2f, dropped behind %.2f us per 4 KiB (dropped / kept %.2f)" %
          (kept, dropped, dropped / kept))


if __name__ == "__main__":
    main()
