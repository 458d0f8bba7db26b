"""What CI needs beyond one lint run: :mod:`animsmith.ci.merge` makes the JSON results of
``lint --shard I/N`` runs one result (``merge-results``). Sharding itself is part of the
run (:mod:`animsmith.lint.shard`)."""
