from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ats_testapp", "0001_initial")]

    operations = [
        migrations.CreateModel(
            name="Effect",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token", models.BigIntegerField(db_index=True)),
                ("attempt", models.PositiveIntegerField()),
                ("pid", models.IntegerField()),
                ("at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
    ]
