"""arksim's public unit-test cases (inputs and expected outcomes), ported; issue 11.

Cases where SPEC.md deliberately differs from arksim are marked with
`spec_override(reason)`: the test asserts tracesim's (SPEC) outcome and
says why it is not arksim's.
"""
