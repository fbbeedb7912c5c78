"""The vendored browser libraries (clients/web/static/vendor) are the pinned,
checksummed files that clients/web/vendor.sh wrote: nothing changed, added or missing."""

from __future__ import annotations

import hashlib
import json

from support import ROOT

VENDOR = ROOT / "clients" / "web" / "static" / "vendor"


def manifest() -> list[dict[str, str]]:
    entries: list[dict[str, str]] = json.loads((VENDOR / "manifest.json").read_text())
    return entries


def test_every_vendored_file_has_its_recorded_sha256() -> None:
    for entry in manifest():
        data = (VENDOR / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]


def test_the_manifest_lists_every_vendored_file_once() -> None:
    listed = [entry["file"] for entry in manifest()]
    present = sorted(str(p.relative_to(VENDOR)) for p in VENDOR.rglob("*") if p.is_file())
    assert len(listed) == len(set(listed))
    assert sorted([*listed, "manifest.json"]) == present


def test_every_package_comes_with_a_licence_and_a_pinned_version() -> None:
    packages = {entry["package"] for entry in manifest()}
    licensed = {entry["package"] for entry in manifest() if "LICENSE" in entry["file"]}
    assert packages == licensed
    for entry in manifest():
        assert entry["version"].count(".") == 2 and entry["version"][0].isdigit()
