"""Analysis of runs and models: the synchronisation ratio of loss events (seed 003, Section III) and the
analytic response functions and RTT unfairness of Sections IV-VI of the BIC paper."""
