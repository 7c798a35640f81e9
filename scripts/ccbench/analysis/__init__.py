"""Stage 4, analysis: tidy tables from stored runs, claim verdicts, and
repetitions added until the claims are decided. Imports the stages below."""
