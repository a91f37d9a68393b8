"""The one intrinsic the search needs beyond the bit helpers of :mod:`prefstats.cards`:
views of arrays that numba does not reference-count (private; see ``_borrowed``)."""

from __future__ import annotations

import numba
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _data_pointer(typingctx, arr):
    """Pointer to the data of a C-contiguous array (others do not type)."""
    if not (isinstance(arr, types.Array) and arr.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(arr)(context, builder, value=args[0]).data

    return types.CPointer(arr.dtype)(arr), codegen


@njit(cache=True, inline="always", error_model="numpy")
def _borrowed(arr):
    """A view of the contiguous array ``arr`` that numba does not reference-count.

    Each array handed to an inlined helper costs an atomic increment and decrement of
    its reference count (about a fifth of the search's time, measured with perf); on
    such a view they are no-ops. The view must not outlive ``arr``.
    """
    return numba.carray(_data_pointer(arr), arr.shape)
