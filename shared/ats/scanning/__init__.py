"""Upload screening on the trusted side: magic-byte type detection, size limits, ClamAV.

Import ``ats.scanning.api`` (functions) or ``ats.scanning.data`` (types) only.
"""
