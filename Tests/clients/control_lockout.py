#!/usr/bin/env python3
"""Strangers must not lock the control token holder out (issues 27 and 46). Starts `ringside serve`
with a control token and fills the control port's connection cap with strangers, then:

  wait    waits past the untrusted deadline (3 s) and asks /health once with the token;
  idle    asks /health 20 times with the token at once, the idle crowd still holding the cap;
  flood   asks 20 times while two processes keep re-filling the cap (each reconnects as soon as
          the server closes one of its connections).

usage: control_lockout.py RINGSIDE CERTS [wait|idle|flood]
prints: answered=<token requests answered 200>/<asked> strangers=<stranger connections made>"""
import multiprocessing, socket, subprocess, sys, time, urllib.request

def refill(host, port, seconds, made):
    """Keeps as many connections open as the server lets it, reconnecting the moment one is closed."""
    held, count, end = [], 0, time.time() + seconds
    while time.time() < end:
        try:
            s = socket.create_connection((host, port), timeout=1)
            s.setblocking(False)
            held.append(s)
            count += 1
        except OSError:
            pass
        alive = []
        for s in held:
            try:
                if s.recv(1) == b"":
                    s.close()
                    continue
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                continue
            alive.append(s)
        held = alive
    made.value += count

def main():
    binary, certs = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else "wait"
    serve = subprocess.Popen([binary, "serve", "--certs", certs, "--port", "0", "--control-token", "secret", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    floods = []
    made = multiprocessing.Value("i", 0)
    try:
        url = None
        for line in serve.stdout:
            if line.startswith("RINGSIDE_CONTROL_URL="):
                url = line.strip().split("=", 1)[1]
                break
        host, port = url.split("//")[1].split(":")
        port = int(port)
        strangers = []
        for _ in range(300):
            try:
                strangers.append(socket.create_connection((host, port), timeout=2))
            except OSError:
                break
        made.value += len(strangers)
        time.sleep(0.3)
        asked = 1 if mode == "wait" else 20
        if mode == "wait":
            time.sleep(4.5)
            # A stranger's request is answered 401 Unauthorized (its reason phrase too) and closed.
            probe = socket.create_connection((host, port), timeout=2)
            probe.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            status_line = probe.recv(200).split(b"\r\n")[0].decode()
            if status_line != "HTTP/1.1 401 Unauthorized":
                print(f"stranger got: {status_line}")
        if mode == "flood":
            floods = [multiprocessing.Process(target=refill, args=(host, port, 6, made)) for _ in range(2)]
            for process in floods:
                process.start()
            time.sleep(1)
        answered = 0
        for _ in range(asked):
            request = urllib.request.Request(url + "/health", headers={"authorization": "Bearer secret"})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    answered += response.status == 200
            except Exception as error:
                print(f"locked out: {error}", file=sys.stderr)
        for process in floods:
            process.join()
        print(f"answered={answered}/{asked} strangers={made.value}")
    finally:
        for process in floods:
            process.kill()
        serve.terminate()
        serve.wait()

if __name__ == "__main__":
    main()
