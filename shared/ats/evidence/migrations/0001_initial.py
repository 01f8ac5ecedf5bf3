from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies: list[tuple[str, str]] = []

    operations = [
        migrations.CreateModel(
            name="BlobReconciliation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("ran_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("ok", models.BooleanField()),
                ("orphan_count", models.PositiveIntegerField()),
                ("deleted_count", models.PositiveIntegerField()),
                ("missing_count", models.PositiveIntegerField()),
                ("report", models.JSONField()),
            ],
            options={"db_table": "evidence_blob_reconciliation"},
        ),
    ]
