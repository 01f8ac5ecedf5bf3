"""Document sandbox: parse untrusted files in a hardened fork of a pre-warmed zygote.

Import ``ats.sandbox.api`` (functions, classes) or ``ats.sandbox.data`` (types); this
package module stays empty so importing ``data`` does not load seccomp or prctl.
"""
