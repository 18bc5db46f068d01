"""PyTensor graph rewrites of the ONNX mode.

`configuration` says which PyTensor rewrites the backend requires, which it
excludes and where in PyTensor's ``optdb`` its own rewrites run; the Scan
converter reads it for inner graphs. Each other module holds one family of
the mode's own rewrites, tagged `~configuration.ONNX_TAG` and registered
where it is defined:

* `subtensor`: ``local_dimshuffle_unit_slice``, in place of PyTensor's
  ``local_dimshuffle_subtensor``;
* `switch`: ``local_switch_uniform_constants``;
* `broadcast_sums`: ``local_sum_before_broadcast``;
* `blockwise`: ``local_blockwise_join_split``, ``local_blockwise_advanced_index``;
* `dimshuffle`: ``merge_dimshuffled_twins``;
* `distinct_data`: ``calls_on_distinct_data``;
* `batching`: ``batch_scalar_calls``.

The last two weigh calls by the ONNX nodes their converters add
(`cost.converted_size`), so they sit above the converters in the package's
layers. Importing this package registers nothing; ``mode`` imports the
families.
"""
