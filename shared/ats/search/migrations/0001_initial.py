import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies: list[tuple[str, str]] = []

    operations = [
        migrations.CreateModel(
            name="SearchEntry",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("kind", models.CharField(max_length=16)),
                ("object_id", models.BigIntegerField()),
                ("candidate_id", models.BigIntegerField(db_index=True, null=True)),
                ("tsv", django.contrib.postgres.search.SearchVectorField()),
                ("source_hash", models.CharField(max_length=64)),
                ("indexed_at", models.DateTimeField(auto_now=True, db_index=True)),
            ],
            options={
                "db_table": "search_entry",
                "indexes": [django.contrib.postgres.indexes.GinIndex(fields=["tsv"], name="search_entry_tsv_gin")],
                "constraints": [
                    models.UniqueConstraint(fields=("kind", "object_id"), name="search_entry_unique_object")
                ],
            },
        ),
        migrations.CreateModel(
            name="SearchSweep",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("started_at", models.DateTimeField()),
                ("finished_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("indexed", models.PositiveIntegerField()),
                ("removed", models.PositiveIntegerField()),
            ],
            options={"db_table": "search_sweep"},
        ),
    ]
