# Runs a command with standard input a pipe set O_NONBLOCK, and writes to it late
# and in pieces: every read of the child that comes first gets EAGAIN. For
# test/io-stdin.test.ts: python3 nonblocking-pipe.py CMD ARGS... (the output is the child's).
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen(sys.argv[1:], stdin=r, stdout=subprocess.PIPE)
os.close(r)
time.sleep(1.0)
for piece in (b'non', b'-blocking ', b'pipe\n'):
    os.write(w, piece)
    time.sleep(0.3)
os.close(w)
out, _ = p.communicate()
sys.stdout.buffer.write(out)
sys.exit(p.returncode)
