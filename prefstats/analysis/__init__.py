"""Analysis of played deals and datasets: a deal's decisions against their best
alternatives, player strength, fitted players, and readable tables."""
