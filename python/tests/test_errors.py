"""polyvol's error kinds as exception classes: each failure of the binary
(run with --format json) and of the long-lived process raises the
PolyvolError subclass of its kind, with the position and field polyvol
names."""

from __future__ import annotations

import pytest

import polyvol
from polyvol import Session

# A 2-D copy whose element size no GPU loads: an input error at line 5,
# column 14 ("element: 3").
BAD_ELEMENT = """\
name: bad
domain: [64, 64]
fields:
  - name: a
    element: 3
    load: [[x, y]]
"""

# A coupled wrap (x + y) % N, whose counting holds memory in proportion to
# N: beyond the default --max-memory (testdata/hostile/spec-coupled-wrap-12800.yaml).
COUPLED_WRAP = {
    "name": "coupled-wrap",
    "domain": [12800, 12800, 12800],
    "flops": 1,
    "fields": [
        {"name": "A", "element": 8, "load": [["(x + y) % 12800", "y", "z"]]},
        {"name": "B", "element": 8, "store": [["x", "y", "z"]]},
    ],
}


def test_input_error_with_position():
    with pytest.raises(polyvol.InputError) as ei:
        polyvol.predict(BAD_ELEMENT)
    e = ei.value
    assert (e.kind, e.file, e.line, e.column, e.field) == ("input", "<stdin>", 5, 14, 'field "a" element')
    assert e.message.startswith('field "a" element = 3: ') and e.returncode == 2
    assert str(e) == f"<stdin>:5:14: {e.message}"


def test_input_error_names_the_flag():
    with pytest.raises(polyvol.InputError) as ei:
        polyvol.predict("vec-copy", device="no-such-gpu")
    e = ei.value
    assert (e.kind, e.field, e.file, e.line) == ("input", "device", None, None)
    assert "unknown device" in e.message


def test_no_fit_error():
    with pytest.raises(polyvol.NoFitError) as ei:
        polyvol.predict("star3d-r4", block=(1024, 1, 1), registers=255)
    assert ei.value.kind == "no-fit" and ei.value.returncode == 2
    assert "no block of 1024 threads fits" in ei.value.message


def test_work_bound_error():
    with pytest.raises(polyvol.WorkBoundError) as ei:
        polyvol.predict(COUPLED_WRAP)
    assert ei.value.kind == "work-bound" and ei.value.returncode == 2
    assert "--max-memory" in ei.value.message


def test_internal_error(tmp_path, monkeypatch):
    # No input makes polyvol fail internally on purpose: a stand-in binary
    # writes the error line of docs/json.md (Errors) and exits 1.
    fake = tmp_path / "polyvol-failing"
    fake.write_text(
        "#!/bin/sh\n"
        "echo 'polyvol: note: before the error' >&2\n"
        """echo '{"schemaVersion":3,"polyvolVersion":"x","kind":"internal","message":"disk full"}' >&2\n"""
        "exit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("POLYVOL_BIN", str(fake))
    with pytest.raises(polyvol.InternalError) as ei:
        polyvol.devices()
    e = ei.value
    assert (e.kind, e.message, e.returncode, e.file, e.field) == ("internal", "disk full", 1, None, None)


def test_classes_are_polyvol_errors():
    for cls, kind in (
        (polyvol.InputError, "input"),
        (polyvol.WorkBoundError, "work-bound"),
        (polyvol.NoFitError, "no-fit"),
        (polyvol.InternalError, "internal"),
    ):
        assert issubclass(cls, polyvol.PolyvolError)
        assert polyvol.PolyvolError.of_kind(kind) is cls


def test_session_errors_by_kind():
    with Session() as s:
        bad_device, bad_spec, no_fit = s.request_many([
            {"endpoint": "predict", "example": "vec-copy", "device": "no-such-gpu"},
            {"endpoint": "predict", "spec": BAD_ELEMENT},
            {"endpoint": "predict", "example": "star3d-r4", "block": "1024,1,1", "registers": "255"},
        ])
    assert isinstance(bad_device, polyvol.InputError) and bad_device.field == "device"
    assert isinstance(bad_spec, polyvol.InputError)
    assert (bad_spec.file, bad_spec.line, bad_spec.column) == ("<stdin>", 5, 14)
    assert isinstance(no_fit, polyvol.NoFitError) and no_fit.kind == "no-fit"
