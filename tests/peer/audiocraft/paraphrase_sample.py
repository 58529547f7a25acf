"""AudioCraft's Paraphraser.sample_paraphrase: with probability `paraphrase_p` a music
description is replaced by one of its paraphrases; a file missing from the source warns
once (`warn_once(logger, ...)`, a cached `logger.warning`) and a replacement is logged at
debug level (`logger.debug(f"{description} -> {new_desc}")`). The source is the parsed
JSON held in memory rather than read from a file; its keys are strings, as `json.loads`
returns them, while the lookup is by `Path`, as in the original."""

import logging
import random
from functools import lru_cache
from pathlib import Path

import torch

ORIGIN = "facebookresearch/audiocraft: audiocraft/data/music_dataset.py: Paraphraser.sample_paraphrase"
CATEGORY = "defer"

logger = logging.getLogger(__name__)


@lru_cache(None)
def warn_once(logger, msg):
    """Warn about a given message only once."""
    logger.warning(msg)


class Paraphraser:
    def __init__(self, paraphrase_source, paraphrase_p: float = 0.):
        self.paraphrase_p = paraphrase_p
        self.paraphrase_source = paraphrase_source
        logger.info(f"loaded paraphrasing source from: {type(paraphrase_source).__name__}")

    def sample_paraphrase(self, audio_path: str, description: str):
        if random.random() >= self.paraphrase_p:
            return description
        info_path = Path(audio_path).with_suffix('.json')
        if info_path not in self.paraphrase_source:
            warn_once(logger, f"{info_path} not in paraphrase source!")
            return description
        new_desc = random.choice(self.paraphrase_source[info_path])
        logger.debug(f"{description} -> {new_desc}")
        return new_desc


_SOURCES = {
    "json": Paraphraser({"music/a.json": ["calm piano", "soft piano piece"]}, paraphrase_p=1.0),
    "path": Paraphraser({Path("music/a.json"): ["calm piano", "soft piano piece"]}, paraphrase_p=1.0),
    "off": Paraphraser({Path("music/a.json"): ["calm piano", "soft piano piece"]}, paraphrase_p=0.0),
}


def describe(wav, audio_path, description, source):
    paraphraser = _SOURCES[source]
    loudness = wav.pow(2).mean()
    return loudness, paraphraser.sample_paraphrase(audio_path, description)


def reset():
    random.seed(0)
    warn_once.cache_clear()


ENTRY = describe
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4), "music/a.wav", "piano", "path"),
    (torch.randn(4), "music/a.wav", "piano", "json"),
    (torch.randn(4), "music/b.wav", "drums", "path"),
    (torch.randn(4), "music/a.wav", "piano", "off"),
]
