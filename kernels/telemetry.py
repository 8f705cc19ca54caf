"""SM clock and temperature through NVML (nvidia-ml-py), when it is installed.

Everything here is optional: without NVML the values are None.
"""

from __future__ import annotations

from typing import Any

_HANDLES: dict[str, Any] = {}


def _handle(pci_bus_id: str) -> Any:
    if pci_bus_id not in _HANDLES:
        import pynvml

        pynvml.nvmlInit()
        try:
            _HANDLES[pci_bus_id] = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id)
        except (TypeError, AttributeError):  # older bindings want bytes
            _HANDLES[pci_bus_id] = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id.encode())
    return _HANDLES[pci_bus_id]


def sample(pci_bus_id: str | None) -> dict[str, int | None]:
    """{"sm_clock_mhz": …, "temp_c": …} for the GPU at `pci_bus_id`; None values on any failure."""
    values: dict[str, int | None] = {"sm_clock_mhz": None, "temp_c": None}
    if not pci_bus_id:
        return values
    try:
        import pynvml

        handle = _handle(pci_bus_id)
        values["sm_clock_mhz"] = int(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))
        values["temp_c"] = int(pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU))
    except Exception:  # NVML missing or refusing: telemetry is best effort by design
        pass
    return values
