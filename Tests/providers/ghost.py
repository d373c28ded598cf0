#!/usr/bin/env python3
# For Tests/false-greens/30: a daemon whose main thread leaves (pthread_exit) while a worker thread sleeps, then pushes again.
# /proc/<pid>/stat then says Z (the thread group's leader is a zombie) though the process runs.
import ctypes, os, subprocess, sys, threading, time

def later():
    time.sleep(float(sys.argv[1]))
    subprocess.run(sys.argv[2:], env={}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os._exit(0)

threading.Thread(target=later).start()
ctypes.CDLL(None).pthread_exit(None)
