"""Working where users already work: Inspect AI logs and tasks, Hugging Face datasets, BFCL result files.

Each lives in its own module and needs its own optional extra; importing this package needs none.
"""
