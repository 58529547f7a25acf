"""The runtime's state, all of it: the parts of the runtime read and write these by attribute
(``state.bounded += 1``), so that a rebinding is seen by all of them, and by the compile
boundary (``boundary.py``)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

# One record: (site, callee, args, kwargs, formats). site = (filename, lineno, funcname) of
# the original call; formats = ((key, template), ...) for defer_format, else ().
Record = Tuple[Tuple[str, int, str], Callable[..., Any], tuple, dict, tuple]

# The deferred calls not replayed yet, oldest first (``flush`` replays them).
records: List[Record] = []
# How many compile boundaries (boundary.py) are running a call: behind one, a guard may be
# recorded after pending records instead of breaking the graph (see ``trap.guard``).
bounded = 0
# (sys.stdout, sys.stderr) when the outermost running boundary's call began, else None: a
# call deferred inside a `with` is recorded only while the streams are these (defer_within).
streams: Optional[Tuple[Any, Any]] = None
# The conditions of the deferred branches whose helper calls are being traced
# (defer.push_condition; None for a branch whose if tested its condition as written).
conditions: list = []

# The torch.cond sites Dynamo failed to trace, as (file, enclosing function, true branch
# function) (cond_trace.py): each runs its original statement from then on.
untraceable_conds: set = set()
# The sites cond_trace.cond_on let through while tracing, newest last: the one that failed
# when Dynamo's error names no branch function.
traced_conds: list = []

# Whether Dynamo's frame conversion is wrapped (conversion.py): without it, a failed trace
# would fail the compile, so no torch.cond site or scalar capture is tried.
conversion_retries = False
# The frames (code objects, by id, held so the id stays theirs) converted with
# capture_scalar_outputs because a captured read asked for it, and those whose conversion
# failed with it, converted without it from then on (capture.py).
capture_frames: Dict[int, Any] = {}
capture_refused: Dict[int, Any] = {}

# The code of the compile boundary's wrapper, and of the functions it compiles, by id
# (sites.register_boundary).
boundary_codes: Dict[int, Any] = {}
entry_codes: Dict[int, Any] = {}
# The modules whose forward code is in entry_codes, by the same key (weak references).
entry_modules: Dict[int, Any] = {}

# Whether a rerun_if was traced in this process (the boundary then keeps the random
# state of each call), and the random state when the first was traced (the state of the
# call during which it was: nothing ran before the trace, ``trap._rerun_safe``).
rerun_guards = False
traced_random_state: Optional[tuple] = None

# The sites ((filename, lineno, funcname)) of the calls [Defer] met while torch.export traced:
# an exported program holds no print, log or warning, so they are not recorded but named
# (``graphmend.export`` reports them; ``defer._dropped_by_export``).
export_dropped: List[Tuple[str, int, str]] = []
