"""Pure document extractors (PDF, DOCX, PNG/JPEG/TIFF with OCR) for the parse sandbox.

Import ``ats.parsing.api`` (functions) or ``ats.parsing.data`` (types); this
package module stays empty so importing ``data`` does not load PyMuPDF.
"""
