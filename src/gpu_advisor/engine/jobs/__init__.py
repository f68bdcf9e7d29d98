"""GPU jobs beside the language model: image and video generation, speech, embeddings,
vision and classic models, video encoding.

Each family sizes its own job from its own inputs (``<family>.py``) and answers with the
same :class:`~gpu_advisor.engine.jobs.plan.JobPlan`: the pick from the catalog, its price,
the one number that matters for that job (seconds per image, minutes per clip, real-time
factor, tokens per second, streams per card) and the cost per unit of work. A family the
engine cannot size says so (``JobPlan.sized is False`` with a finding); it never falls
back to the language-model path.
"""
