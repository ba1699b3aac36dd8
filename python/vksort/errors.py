"""vksort's exceptions: one base class, :class:`Error`, and a subclass per kind of failure.

The native module raises these by the Rust ``vksort::Error`` variant; the argument checks of the Python layer
raise them too. Where a standard exception fits, the class derives from it as well, so ``except ValueError`` and
``except TypeError`` keep working:

============================  =====================================================================
``Error``                     base of everything vksort raises (also: a pipeline cache not written)
``InvalidArgumentError``      also ``ValueError``: bad shape, length, ``out=``, algorithm name, bit range
``DTypeError``                also ``TypeError``: a dtype vksort does not sort (object, str, complex, ...)
``TooLargeError``             also ``ValueError``: more keys than the device or algorithm takes (names the limit)
``OutOfDeviceMemoryError``    also ``MemoryError``: a device allocation failed
``UnsupportedError``          the device or the algorithm cannot do this (a feature, a key type, stability)
``NoDeviceError``             no Vulkan loader, or no device matches ``device=`` / ``VKSORT_DEVICE``
``DeviceError``               a Vulkan call failed, the device was lost, a wait timed out
============================  =====================================================================
"""

__all__ = [
    "Error",
    "InvalidArgumentError",
    "DTypeError",
    "TooLargeError",
    "OutOfDeviceMemoryError",
    "UnsupportedError",
    "NoDeviceError",
    "DeviceError",
]


class Error(Exception):
    """Base class of every exception vksort raises."""


class InvalidArgumentError(Error, ValueError):
    """An argument out of its allowed range: shape, length, ``out=``, an algorithm's name, a policy."""


class DTypeError(Error, TypeError):
    """An array of a dtype vksort does not sort (object, str, complex, structured, ...)."""


class TooLargeError(Error, ValueError):
    """More keys than the device or the algorithm takes; the message names the limit."""


class OutOfDeviceMemoryError(Error, MemoryError):
    """A device memory allocation failed."""


class UnsupportedError(Error):
    """The device or the chosen algorithm cannot do what was asked (a feature, a key type, stability)."""


class NoDeviceError(Error):
    """No Vulkan loader, or no Vulkan device (matching ``device=`` or ``VKSORT_DEVICE``)."""


class DeviceError(Error):
    """A Vulkan call failed, the device was lost, or a wait for the GPU timed out."""
