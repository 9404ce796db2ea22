# SPDX-License-Identifier: Apache-2.0
"""Label mappings: which category index stands for which label.

A mapping is configuration, like epsilon: a labelled report file and every aggregate state
saved from it record the SHA-256 of the mapping written one label per line, each followed by
"\\n" (for a labels file `tinyldp simulate --labels` wrote, the `sha256sum` of the file). The
collector only compares digests; this module computes them, exactly as the CLI does, so a
labels file is checked against the reports it is applied to and shards numbered by different
mappings never merge.
"""
import hashlib
import os

import numpy as np


class LabelMapping:
    """An ordered list of distinct labels; label i is category index i."""

    def __init__(self, labels):
        self._labels = [str(label) for label in labels]
        self._index = {}
        for i, label in enumerate(self._labels):
            if "\n" in label or "\r" in label:
                raise ValueError(f"label {label!r} has a line break (a labels file holds one label per line)")
            if label in self._index:
                raise ValueError(f"label {label!r} appears twice (a mapping numbers each label once)")
            self._index[label] = i

    @classmethod
    def read(cls, path):
        """The mapping of a labels file (one label per line, line i is index i - 1)."""
        with open(path, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        labels = [line[:-1] if line.endswith(b"\r") else line for line in lines]
        try:
            return cls(label.decode("utf-8") for label in labels)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None

    @classmethod
    def from_values(cls, values, domain=None):
        """Labels numbered in order of first appearance, as `simulate --labels` numbers them."""
        labels = list(dict.fromkeys(str(v) for v in values))
        if domain is not None and len(labels) > domain:
            raise ValueError(f"more than {domain} distinct labels (raise the domain)")
        return cls(labels)

    @property
    def labels(self):
        return list(self._labels)

    @property
    def digest(self):
        """The mapping's identity: 32 bytes of SHA-256, as report files and states record it."""
        h = hashlib.sha256()
        for label in self._labels:
            h.update(label.encode("utf-8") + b"\n")
        return h.digest()

    @property
    def hexdigest(self):
        return self.digest.hex()

    def index(self, label):
        try:
            return self._index[str(label)]
        except KeyError:
            raise ValueError(f"label {label!r} is not in the mapping ({len(self)} labels)") from None

    def encode(self, values):
        """The category index of every value (an int64 array); a label not in it is an error."""
        return np.fromiter((self.index(v) for v in values), dtype=np.int64)

    def decode(self, indices):
        return [self._labels[i] for i in indices]

    def write(self, path):
        """Writes the labels file (whose sha256sum is the digest)."""
        tmp = f"{path}.partial"
        with open(tmp, "wb") as f:
            for label in self._labels:
                f.write(label.encode("utf-8") + b"\n")
        os.replace(tmp, path)

    def __len__(self):
        return len(self._labels)

    def __getitem__(self, i):
        return self._labels[i]

    def __iter__(self):
        return iter(self._labels)

    def __eq__(self, other):
        return isinstance(other, LabelMapping) and self._labels == other._labels

    def __repr__(self):
        shown = ", ".join(repr(label) for label in self._labels[:4])
        more = ", …" if len(self) > 4 else ""
        return f"LabelMapping([{shown}{more}], sha256 {self.hexdigest[:16]}…)"


def describe(digest):
    """As the CLI names a mapping in messages: "labels sha256 1a2b3c4d…" or no mapping."""
    return "no recorded label mapping" if digest is None else f"labels sha256 {digest.hex()[:16]}…"


def as_mapping(labels):
    """A LabelMapping from a mapping, a labels file's path or a sequence of labels (None: None)."""
    if labels is None or isinstance(labels, LabelMapping):
        return labels
    if isinstance(labels, (str, os.PathLike)):
        return LabelMapping.read(labels)
    return LabelMapping(labels)
