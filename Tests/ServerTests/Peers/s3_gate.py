"""A TCP relay in front of the test S3 store, to hold a GET partway (Tests/ServerTests/Objects, staging tests).

    s3_gate.py UPSTREAM_PORT THRESHOLD DIR

Listens on a free loopback port (printed first) and relays every connection to 127.0.0.1:UPSTREAM_PORT. While
the file DIR/hold exists, a response that passes THRESHOLD bytes on its connection is held right there: the
relay writes DIR/held and forwards nothing more of it until DIR/hold is removed, then goes on with whatever
the store still sends (all of it, or what it sent before it died: the client then sees the body cut).
"""

import os
import socket
import sys
import threading
import time

UPSTREAM, THRESHOLD, DIRECTORY = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
HOLD, HELD = os.path.join(DIRECTORY, "hold"), os.path.join(DIRECTORY, "held")


def close(*sockets):
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()


def pump(source, target, counted):
    total = 0
    try:
        while True:
            data = source.recv(1 << 16)
            if not data:
                break
            if counted and total <= THRESHOLD < total + len(data) and os.path.exists(HOLD):
                head = THRESHOLD - total
                target.sendall(data[:head])
                total, data = THRESHOLD + 1, data[head:]
                open(HELD, "w").close()
                while os.path.exists(HOLD):
                    time.sleep(0.02)
            total += len(data)
            target.sendall(data)
    except OSError:
        pass
    finally:
        close(source, target)


def relay(client):
    try:
        upstream = socket.create_connection(("127.0.0.1", UPSTREAM))
    except OSError:
        close(client)
        return
    threading.Thread(target=pump, args=(client, upstream, False), daemon=True).start()
    pump(upstream, client, True)


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=relay, args=(client,), daemon=True).start()


if __name__ == "__main__":
    main()
