"""Object storage for uploaded documents: one BlobStore interface, local FS and Azure Blob.

Import ``ats.storage.api`` (factory, interface) or ``ats.storage.data`` (types, errors) only.
"""
