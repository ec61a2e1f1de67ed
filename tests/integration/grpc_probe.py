#!/usr/bin/env python3
"""Calls pmrag's OTLP/gRPC receiver with grpcio (the gRPC library the
OpenTelemetry SDK exports with), over TLS trusting CA (plain text when CA
is "-"), and prints how each refusal reads to a real gRPC client: the
status code, its message, and the retry delay found in the trailers. Run
with .deps/otel-venv/bin/python (deploy/deps.sh --otel).

    grpc_probe.py ADDR CA TOKEN_FILE bad
                      with the token, a message that is not protobuf
    grpc_probe.py ADDR CA TOKEN_FILE refused
                      no token; the token and an unknown method; the token
                      and a real Export (for a daemon that refuses
                      everything: limits.memory_bytes)
    grpc_probe.py ADDR CA TOKEN_FILE export
                      one real Export (with the token unless TOKEN_FILE
                      is "-")

One line per call: CODE<TAB>MESSAGE<TAB>RETRY (RETRY: the delay in seconds
from grpc-status-details-bin and from google.rpc.retryinfo-bin, as
"status=S,alone=S", or "-" when neither is there).
"""
import sys

import grpc
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

TRACES = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def show(err):
    md = dict(err.trailing_metadata() or ())
    retry = []
    if "grpc-status-details-bin" in md:
        st = status_pb2.Status.FromString(md["grpc-status-details-bin"])
        if st.code != err.code().value[0]:
            retry.append("status-code-mismatch=%d" % st.code)
        for d in st.details:
            ri = error_details_pb2.RetryInfo()
            if d.Unpack(ri):
                retry.append("status=%d" % ri.retry_delay.seconds)
    if "google.rpc.retryinfo-bin" in md:
        ri = error_details_pb2.RetryInfo.FromString(md["google.rpc.retryinfo-bin"])
        retry.append("alone=%d" % ri.retry_delay.seconds)
    print("%s\t%s\t%s" % (err.code().name, err.details(), ",".join(retry) or "-"))


def call(fn):
    try:
        fn()
        print("OK\t\t-")
    except grpc.RpcError as e:
        show(e)


def main():
    addr, ca, token_file, mode = sys.argv[1:5]
    if ca == "-":
        ch = grpc.insecure_channel(addr)
    else:
        creds = grpc.ssl_channel_credentials(root_certificates=open(ca, "rb").read())
        ch = grpc.secure_channel(addr, creds)
    auth = (("authorization", "Bearer " + open(token_file).read().strip()),) \
        if token_file != "-" else ()
    raw = ch.unary_unary(TRACES, request_serializer=None, response_deserializer=None)
    if mode == "export":
        stub = trace_service_pb2_grpc.TraceServiceStub(ch)
        call(lambda: stub.Export(trace_service_pb2.ExportTraceServiceRequest(), metadata=auth,
                                 timeout=10))
    elif mode == "bad":
        call(lambda: raw(b"\x0a\x05\x01", metadata=auth, timeout=10))
    else:
        stub = trace_service_pb2_grpc.TraceServiceStub(ch)
        req = trace_service_pb2.ExportTraceServiceRequest()
        call(lambda: stub.Export(req, timeout=10))
        other = ch.unary_unary("/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
                               request_serializer=None, response_deserializer=None)
        call(lambda: other(b"", metadata=auth, timeout=10))
        call(lambda: stub.Export(req, metadata=auth, timeout=10))
    ch.close()


if __name__ == "__main__":
    main()
