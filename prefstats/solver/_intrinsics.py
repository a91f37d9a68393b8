"""The one intrinsic the search needs beyond the bit helpers of :mod:`prefstats.game.cards`:
views of arrays that numba does not reference-count (private; see ``_borrowed``)."""

from __future__ import annotations

import math

import numba
from numba import njit, types
from numba.core import cgutils
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



@intrinsic
def _stack(typingctx, shape, dtype):
    """A C-contiguous array of ``shape`` (constants) and ``dtype``, uninitialised, on the
    stack of the compiled function that calls it, valid for the rest of its call: no
    allocation and no reference counting (a search's scratch arrays)."""
    dims = shape.types if isinstance(shape, types.BaseTuple) else (shape,)
    if not (all(isinstance(d, types.IntegerLiteral) for d in dims)
            and isinstance(dtype, types.NumberClass)):
        return None
    sizes = [d.literal_value for d in dims]
    item = dtype.instance_type
    array_type = types.Array(item, len(sizes), "C")

    def codegen(context, builder, signature, args):
        data_type = context.get_data_type(item)
        itemsize = context.get_abi_sizeof(data_type)
        strides = [itemsize * math.prod(sizes[k + 1:]) for k in range(len(sizes))]
        data = cgutils.alloca_once(builder, data_type, size=math.prod(sizes))
        array = context.make_array(array_type)(context, builder)
        intp = lambda v: context.get_constant(types.intp, v)  # noqa: E731
        context.populate_array(array, data=data, shape=[intp(v) for v in sizes],
                               strides=[intp(v) for v in strides], itemsize=intp(itemsize),
                               meminfo=None)
        return array._getvalue()

    return array_type(shape, dtype), codegen
