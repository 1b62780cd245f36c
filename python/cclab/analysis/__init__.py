"""Analysis of runs and models: the synchronisation ratio of loss events (seed 003, Section III), the
analytic response functions and RTT unfairness of Sections IV-VI of the BIC paper, and the distributions
of every RTT measurement from the engine's per-flow histograms (seed 002, Figs. 4-5)."""
