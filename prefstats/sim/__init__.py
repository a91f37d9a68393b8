"""Simulation: playing deals and pulkas in batches, storing them as Parquet datasets,
and counterfactual rollouts of one decision on identical deals."""
