import sys, tempfile, duckdb
from pathlib import Path
from tests.conformance.replay import load, replay, HERE
r = load(HERE / "recordings" / sys.argv[1])
d = Path(tempfile.mkdtemp())
replay(r, transport="grpc", workdir=d)
con = duckdb.connect(str(next(d.glob("*.duckdb"))), read_only=True)
q = sys.argv[2] if len(sys.argv) > 2 else "SELECT span_id, parent_span_id, name, operation, model, input_tokens, output_tokens, chat_id, status_code, left(attributes, 300) FROM spans ORDER BY start_time"
for row in con.execute(q).fetchall():
    print(row)
