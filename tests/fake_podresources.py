#!/usr/bin/python3
"""A fake kubelet pod-resources server for the tests: gRPC on a unix socket
serving v1.PodResourcesLister/List (Debian's python3-grpcio, no generated
code: the ListPodResourcesResponse is encoded here in protobuf wire format).

  fake_podresources.py SOCKET POD/NAMESPACE/CONTAINER=DEVICE_ID[,ID...] ...
  fake_podresources.py --other-service SOCKET   (a gRPC server without PodResourcesLister)

Runs until killed; prints "ready" once serving.
"""
import sys
import time
from concurrent import futures

import grpc


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):  # length-delimited field
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def response(assignments):
    # assignments: [(pod, namespace, container, [device ids])]
    pods = {}
    for pod, ns, container, ids in assignments:
        devices = field(1, "nvidia.com/gpu") + b"".join(field(2, i) for i in ids)
        # An int64 list (cpu_ids, field 3, packed) the client must skip.
        c = field(1, container) + field(2, devices) + field(3, varint(4) + varint(5))
        pods.setdefault((pod, ns), []).append(c)
    out = b""
    for (pod, ns), containers in pods.items():
        out += field(1, field(1, pod) + field(2, ns) + b"".join(field(3, c) for c in containers))
    return out


def main():
    args = sys.argv[1:]
    other = args and args[0] == "--other-service"
    if other:
        args = args[1:]
    socket, specs = args[0], args[1:]
    assignments = []
    for s in specs:
        who, ids = s.split("=", 1)
        pod, ns, container = who.split("/")
        assignments.append((pod, ns, container, ids.split(",")))
    answer = response(assignments)
    service = "v1.SomethingElse" if other else "v1.PodResourcesLister"
    handler = grpc.method_handlers_generic_handler(
        service, {"List": grpc.unary_unary_rpc_method_handler(lambda req, ctx: answer)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port("unix:" + socket)
    server.start()
    print("ready", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
