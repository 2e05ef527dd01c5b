import sys, json, tempfile
from pathlib import Path
from tests.conformance.replay import load, replay, HERE
for v in sys.argv[1:]:
    r = load(HERE / "recordings" / v)
    o = replay(r, transport="grpc", workdir=Path(tempfile.mkdtemp()))
    print("==", v, "| truth conv", r.truth["conversation_id"], "| models", o.model_calls, o.input_tokens, o.output_tokens, "truth", r.truth["model_calls"], r.truth["input_tokens"], r.truth["output_tokens"], "| gaps", r.truth.get("expected_gaps"))
    for t in r.truth["tool_calls"]:
        print("  T", t["name"], json.dumps(t["arguments"]), repr(t["result"]), repr(t["error"]), t["id"])
    for c in o.tool_calls:
        print("  F", c["name"], json.dumps(c["arguments"])[:150], repr(c["result"])[:150], repr(c["error"])[:150], c["id"], c["chat_id"][:12])
    print("  notes:", r.truth.get("notes","")[:300])
