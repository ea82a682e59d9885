#!/usr/bin/python3
# tests/fakeflash.py - a fake flash drive for --probe's tests: a FUSE file
# system with one file, "disk", that claims CLAIMED bytes and keeps REAL.
#
#   tests/fakeflash.py MOUNTPOINT CLAIMED REAL MODE &
#
# MODE wrap:  offsets wrap around every REAL bytes (a controller that
#             ignores the high address bits; REAL a power of two)
#      zeros: writes at or past REAL are lost, reads there return zeros
#      eio:   a write at or past REAL fails with EIO (a worn-out or dying
#             drive); reads there return what was there
#      dies:  every byte is kept until REAL bytes have been written; then
#             every write fails with EIO (a drive that dies mid-probe) until
#             a file MOUNTPOINT.mend appears
#      stall: as dies, but the write past REAL waits (creating
#             MOUNTPOINT.stalled) until MOUNTPOINT.mend appears (at most
#             60 s, then EIO), then is kept
#      good:  every byte is kept (REAL is ignored)
#      cliff: every byte is kept; writes run at 80 MiB/s for the first REAL
#             bytes written, then at 16 MiB/s (a write cache that filled)
# Data lives in memory in 4 KiB blocks (unwritten blocks read as zeros),
# so a 1 GiB claim costs only what is written; in modes dies and stall the
# first 32 MiB start out random, as a disk in use would.  Mounted with direct_io:
# every read and write reaches this daemon, as they reach a real device.
# Runs in the foreground until unmounted (fusermount -u MOUNTPOINT).
import errno
import os
import stat
import sys
import time

import fusepy

BLOCK = 4096


class FakeFlash(fusepy.Operations):
    def __init__(self, claimed, real, mode):
        self.claimed, self.real, self.mode = claimed, real, mode
        self.blocks = {}
        self.now = time.time()
        self.written = 0        # cliff: bytes written so far
        self.due = 0.0          # cliff: when the writes so far may have ended
        self.mend = None        # dies, stall: the file that ends the failure
        if mode in ("dies", "stall"):
            self.blocks = {b: os.urandom(BLOCK) for b in range((32 << 20) // BLOCK)}

    def place(self, block):
        """The block that holds `block`'s data, or None where it is lost."""
        if self.mode == "wrap":
            return block % (self.real // BLOCK)
        if self.mode == "zeros" and block * BLOCK >= self.real:
            return None
        return block

    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2, st_ctime=self.now, st_mtime=self.now, st_atime=self.now)
        if path == "/disk":
            return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_size=self.claimed,
                        st_ctime=self.now, st_mtime=self.now, st_atime=self.now)
        raise fusepy.FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", "disk"]

    def open(self, path, flags):
        if path != "/disk":
            raise fusepy.FuseOSError(errno.ENOENT)
        return 0

    def truncate(self, path, length, fh=None):
        raise fusepy.FuseOSError(errno.EPERM)

    def read(self, path, size, offset, fh):
        size = max(0, min(size, self.claimed - offset))
        out = bytearray()
        while len(out) < size:
            at = offset + len(out)
            block, inside = divmod(at, BLOCK)
            n = min(BLOCK - inside, size - len(out))
            where = self.place(block)
            data = self.blocks.get(where, bytes(BLOCK)) if where is not None else bytes(BLOCK)
            out += data[inside:inside + n]
        return bytes(out)

    def pace(self, n):
        """cliff: hold a write of n bytes until its rate allows it."""
        rate = (80 if self.written < self.real else 16) << 20
        self.written += n
        self.due = max(self.due, time.monotonic()) + n / rate
        delay = self.due - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    def write(self, path, data, offset, fh):
        if offset + len(data) > self.claimed:
            raise fusepy.FuseOSError(errno.ENOSPC)
        if self.mode == "cliff":
            self.pace(len(data))
        if self.mode == "eio" and offset + len(data) > self.real:
            raise fusepy.FuseOSError(errno.EIO)
        if self.mode in ("dies", "stall"):
            self.written += len(data)
            if self.written > self.real and not os.path.exists(self.mend):
                if self.mode == "dies":
                    raise fusepy.FuseOSError(errno.EIO)
                open(self.mend[:-len(".mend")] + ".stalled", "w").close()
                deadline = time.monotonic() + 60      # a test that forgot it ends anyway
                while not os.path.exists(self.mend):
                    if time.monotonic() > deadline:
                        raise fusepy.FuseOSError(errno.EIO)
                    time.sleep(0.02)
        done = 0
        while done < len(data):
            at = offset + done
            block, inside = divmod(at, BLOCK)
            n = min(BLOCK - inside, len(data) - done)
            where = self.place(block)
            if where is not None:
                old = bytearray(self.blocks.get(where, bytes(BLOCK)))
                old[inside:inside + n] = data[done:done + n]
                self.blocks[where] = bytes(old)
            done += n
        return len(data)

    def fsync(self, path, datasync, fh):
        return 0

    def flush(self, path, fh):
        return 0


def main():
    mountpoint, claimed, real, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    fake = FakeFlash(claimed, real, mode)
    fake.mend = os.path.abspath(mountpoint) + ".mend"
    fusepy.FUSE(fake, mountpoint, foreground=True, direct_io=True, nothreads=True)


if __name__ == "__main__":
    main()
