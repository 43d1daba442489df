"""model-download: a Hugging Face repository downloaded by a CPU Job into an S3 storage under models/."""
