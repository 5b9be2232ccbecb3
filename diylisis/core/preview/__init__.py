"""Proplasma (`git distill preview`): the pure protocol logic, over frozen values."""
