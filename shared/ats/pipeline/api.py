"""Facade of the pipeline module: the chain steps that cross modules.

Nothing imports the pipeline (it is on the top layer with web and cli); it registers its
tasks (`candidates.create_from_attachment`), its receivers and the management commands
that need several modules (`ats ingest`, `ats intake-verify`, `ats document`, `ats jobs`,
`ats queue`, `ats policy`) when Django starts it.
"""

__all__: list[str] = []
