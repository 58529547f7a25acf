"""nnU-Net's predictor constructor, run by the prediction entry points (`predict_entry_point`,
`predict_entry_point_modelfolder`) before a model folder is loaded: it stores the sliding-window
settings and, for a device that is not CUDA, says that results cannot stay on the device
(`print('perform_everything_on_device=True is only supported for cuda devices! Setting this to
False')`) and turns the option off; on a CUDA device it switches cuDNN's benchmark mode on. The
step builds a predictor for the requested device and runs a tiny network, its output moved to
the results device the predictor chose (as the sliding window does: the predictor's device when
it keeps everything on the device, the CPU otherwise). The `print` comes before the graph's
first operation, and Dynamo's explain reports no break for it. The CUDA input only names the
device: the predictor keeps nothing there."""

import torch
from torch import nn

ORIGIN = "MIC-DKFZ/nnUNet: nnunetv2/inference/predict_from_raw_data.py: nnUNetPredictor.__init__"
CATEGORY = "no_break"


class nnUNetPredictor(object):
    def __init__(self,
                 tile_step_size: float = 0.5,
                 use_gaussian: bool = True,
                 use_mirroring: bool = True,
                 perform_everything_on_device: bool = True,
                 device: torch.device = torch.device('cuda'),
                 verbose: bool = False,
                 verbose_preprocessing: bool = False,
                 allow_tqdm: bool = True):
        self.verbose = verbose
        self.verbose_preprocessing = verbose_preprocessing
        self.allow_tqdm = allow_tqdm

        self.plans_manager, self.configuration_manager, self.list_of_parameters, self.network, self.dataset_json, \
        self.trainer_name, self.allowed_mirroring_axes, self.label_manager = None, None, None, None, None, None, None, None

        self.tile_step_size = tile_step_size
        self.use_gaussian = use_gaussian
        self.use_mirroring = use_mirroring
        if device.type == 'cuda':
            torch.backends.cudnn.benchmark = True
        else:
            print('perform_everything_on_device=True is only supported for cuda devices! Setting this to False')
            perform_everything_on_device = False
        self.device = device
        self.perform_everything_on_device = perform_everything_on_device


torch.manual_seed(0)
NETWORK = nn.Conv2d(1, 2, 3, padding=1)


def reset():
    torch.backends.cudnn.benchmark = False


def predict(x, device, perform_everything_on_device):
    predictor = nnUNetPredictor(tile_step_size=0.5, use_gaussian=True, use_mirroring=False,
                                perform_everything_on_device=perform_everything_on_device,
                                device=device, verbose=False, allow_tqdm=False)
    results_device = predictor.device if predictor.perform_everything_on_device else torch.device('cpu')
    logits = NETWORK(x).to(results_device)
    return logits, predictor.perform_everything_on_device, torch.backends.cudnn.benchmark


ENTRY = predict
torch.manual_seed(0)
INPUTS = [
    # a CPU predictor asked to keep everything on the device: it says no and falls back
    (torch.randn(1, 1, 4, 4), torch.device('cpu'), True),
    (torch.randn(1, 1, 4, 4), torch.device('cpu'), False),
    # a CUDA predictor (results on the CPU): cuDNN's benchmark mode is switched on, nothing printed
    (torch.randn(1, 1, 4, 4), torch.device('cuda'), False),
]
