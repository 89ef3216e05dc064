"""Exceptions and warnings of ptxsim: one exception class per run status, each carrying the report."""
from __future__ import annotations

from typing import NamedTuple


class Diagnostic(NamedTuple):
    """One diagnostic of ptxsim: where (PTX file, 1-based line and column; 0 = unknown) and what."""
    severity: str  # "error" | "warning" | "note"
    file: str
    line: int
    col: int
    message: str
    formatted: str  # "file:line:col: severity: message" with the source line and a caret


class PtxError(ValueError):
    """Malformed or unsupported PTX (raised by ptxsim.load); .diagnostic says where."""

    def __init__(self, message: str, diagnostic: tuple = ("error", "", 0, 0, "", ""), unimplemented: bool = False):
        super().__init__(message)
        self.diagnostic = Diagnostic(*diagnostic)
        self.unimplemented = unimplemented  # a valid form ptxsim recognises but does not simulate yet


class SimulationError(RuntimeError):
    """A launch that did not complete. str() is ptxsim's full report; the attributes break it down."""
    status = "error"

    def __init__(self, report: str, diagnostics: list[Diagnostic], stats: dict, kernel: str = ""):
        super().__init__(report)
        self.report = report
        self.diagnostics = diagnostics
        self.stats = stats
        self.kernel = kernel


class LaunchError(SimulationError):
    """The launch itself was invalid (dimensions, parameter size, shared memory, unknown kernel)."""
    status = "error"


class KernelFault(SimulationError):
    """The kernel faulted: trap, illegal address, misaligned access, device assertion."""
    status = "fault"


class KernelDeadlock(SimulationError):
    """The kernel can never finish; the report names every waiting thread group and what it waits for."""
    status = "deadlock"


class KernelTimeout(SimulationError):
    """The run exceeded its instruction or wall-time budget (max_instructions / max_seconds)."""
    status = "timeout"


class PtxsimWarning(UserWarning):
    """A diagnostic of a completed run (hazards, suspicious accesses): issued through warnings.warn."""


ERRORS = {cls.status: cls for cls in (LaunchError, KernelFault, KernelDeadlock, KernelTimeout)}
