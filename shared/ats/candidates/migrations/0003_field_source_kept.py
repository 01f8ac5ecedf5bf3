"""FieldSource gains `kept`: contact data an automatic merge kept (issue 21 N3). Choices only:
no change to the column."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("candidates", "0002_documents_versions_dedupe")]

    operations = [
        migrations.AlterField(
            model_name="candidatefield",
            name="source",
            field=models.CharField(
                choices=[("extraction", "Extraction"), ("recruiter", "Recruiter"), ("kept", "Kept")],
                default="extraction",
                max_length=16,
            ),
        ),
    ]
