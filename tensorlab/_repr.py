"""``repr(tensor)`` in PyTorch's format: precision 4, summaries past 1000 elements, and the dtype,
device and autograd state shown when they are not the defaults.

Use :func:`set_printoptions` (PyTorch's names) to change precision, threshold, edgeitems,
linewidth or sci_mode.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype as D


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, 1000, 3, 80
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 1000, 2, 80
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, math.inf, 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    def __init__(self, values: np.ndarray, dtype: D.dtype):
        self.floating = dtype.is_floating_point
        self.is_bool = dtype is D.bool
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if self.is_bool:
            self.max_width = max((len(str(bool(v))) for v in flat), default=1)
            return
        if not self.floating:
            self.max_width = max((len(str(int(v))) for v in flat), default=1)
            return
        # As PyTorch: widths and modes come from the non-zero finite values only.
        values = flat[np.isfinite(flat) & (flat != 0)]
        if values.size == 0:
            return
        self.int_mode = bool(np.all(np.ceil(values) == values))
        nonzero = np.abs(values)
        lo, hi = float(nonzero.min()), float(nonzero.max())
        p = PRINT_OPTS.precision
        # As PyTorch: the mode is chosen first (a forced ``sci_mode`` wins), then the widths are
        # measured in that mode, so fixed notation is never padded to scientific widths.
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = bool(PRINT_OPTS.sci_mode)
        if self.sci_mode:
            texts = [f"{v:.{p}e}" for v in values]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in values]
        else:
            texts = [f"{v:.{p}f}" for v in values]
        self.max_width = max([self.max_width] + [len(t) for t in texts])

    def format(self, v) -> str:
        if self.is_bool:
            text = str(bool(v))
        elif not self.floating:
            text = str(int(v))
        else:
            v = float(v)
            p = PRINT_OPTS.precision
            if not math.isfinite(v):
                text = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
            elif self.sci_mode:
                text = f"{v:.{p}e}"
            elif self.int_mode:
                text = f"{v:.0f}."
            else:
                text = f"{v:.{p}f}"
        return " " * (self.max_width - len(text)) + text


def _summarize(a: np.ndarray, edge: int) -> np.ndarray:
    """The corners of ``a`` that a summary prints, for the formatter's widths."""
    if a.ndim == 0:
        return a.reshape(1)
    if not edge:
        return a.reshape(-1)[:0]  # a summary with no edge items prints no values at all
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[-edge:]])
    return np.stack([_summarize(x, edge) for x in a]) if a.ndim > 1 and a.shape[0] else a


def _format_body(a: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    edge = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        if summarize and not edge:
            items = ["..."]
        elif summarize and a.shape[0] > 2 * edge:
            items = [fmt.format(v) for v in a[:edge]] + [" ..."] + [fmt.format(v) for v in a[-edge:]]
        else:
            items = [fmt.format(v) for v in a]
        per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt.max_width + 2)))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    if summarize and not edge:
        rows = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        rows = ([_format_body(x, fmt, indent + 1, summarize) for x in a[:edge]] + ["..."]
                + [_format_body(x, fmt, indent + 1, summarize) for x in a[-edge:]])
    else:
        rows = [_format_body(x, fmt, indent + 1, summarize) for x in a]
    return "[" + sep.join(rows) + "]"


def _torch_len(suffix: str) -> int:
    """The width ``suffix`` has in PyTorch's repr, where dtypes print as ``torch.<name>`` rather than
    ``tensorlab.<name>``: line breaks are chosen on that width so that they fall where PyTorch's do."""
    return len(suffix) - suffix.count("tensorlab.") * (len("tensorlab.") - len("torch."))


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``suffixes`` and the closing parenthesis as PyTorch's ``_add_suffixes`` does: a suffix
    that would take the current line past ``linewidth`` starts a new line, indented under the
    opening parenthesis."""
    parts = [text]
    # PyTorch's measure of the current line (two more than its length); kept so line breaks agree.
    line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        width = _torch_len(suffix)
        if line_len + width + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + width
        else:
            parts.append(", " + suffix)
            line_len += width + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t) -> str:
    prefix = "tensor("
    indent = len(prefix)
    values = t.detach()._host_array()
    if t.dtype is D.bfloat16 or t.dtype is D.float16:
        values = values.astype(np.float32)
    suffixes = []
    if t.is_cuda:
        suffixes.append(f"device='{t.device}'")
    default_dtype = D.get_default_dtype()
    if t.numel() == 0:
        body = "[]"
        if len(t._shape) != 1:
            suffixes.append(f"size={tuple(t._shape)}")
        if t.dtype is not default_dtype:
            suffixes.append(f"dtype={t.dtype!r}")
    else:
        if not PRINT_OPTS.edgeitems:
            # As PyTorch: with no edge items a summary shows no values, so the shape is always given.
            suffixes.append(f"size={tuple(t._shape)}")
        if t.dtype not in (default_dtype, D.int64, D.bool):
            suffixes.append(f"dtype={t.dtype!r}")
        summarize = t.numel() > PRINT_OPTS.threshold
        sample = _summarize(values, PRINT_OPTS.edgeitems) if summarize else values
        fmt = _Formatter(sample, t.dtype)
        body = _format_body(values, fmt, indent, summarize)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
