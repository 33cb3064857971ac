"""Tutorial 04 — the main demo: an MLP trained on real MNIST digits.

    python tutorials/04_mnist_mlp.py                       # cuda when a GPU is present, else cpu
    python tutorials/04_mnist_mlp.py --device cpu --epochs 10

Uses the 5,000 real MNIST digits bundled with tensorlab (4,000 to train, 1,000 held out), a
DataLoader with worker processes, an MLP, cross-entropy, Adam with a one-cycle learning-rate
schedule, and a checkpoint that is saved, reloaded and checked. Prints progress (a bar on a
terminal, one line per epoch otherwise) and the held-out accuracy.

Options that make it faster (for smoke tests) change sizes, never skip a step: --epochs,
--hidden, --workers, --batch-size.
"""

# %% Setup.
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import tensorlab as tl
from tensorlab import nn
from tensorlab.datasets import MNISTSubset, transforms
from tensorlab.utils.data import DataLoader

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda if a real GPU is present)")
parser.add_argument("--epochs", type=int, default=8, help="passes over the 4,000 training digits (default 8)")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--hidden", type=int, default=256, help="width of the hidden layers (default 256)")
parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of the one-cycle schedule")
parser.add_argument("--workers", type=int, default=2, help="DataLoader worker processes (default 2)")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--checkpoint", default=None, help="where to save the model (default: a temporary directory)")
args, _ = parser.parse_known_args()
device = args.device or ("cuda" if tl.cuda.is_available() and not tl.cuda.is_interpreted() else "cpu")
tl.manual_seed(args.seed)
print(f"device: {device}")

# %% Data.
# Images are uint8 28x28; ToTensor scales them to [0, 1] floats (1x28x28) and Normalize centres
# them with MNIST's mean and std. Transforms run inside the DataLoader's worker processes; the
# batches come back through shared memory and are moved to the device in the main process.
normalize = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
train_set = MNISTSubset(train=True, transform=normalize)
test_set = MNISTSubset(train=False, transform=normalize)
train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                          pin_memory=device == "cuda", generator=tl.Generator().manual_seed(args.seed),
                          persistent_workers=args.workers > 0)
test_loader = DataLoader(test_set, batch_size=500, num_workers=0)
print(f"train: {len(train_set)} digits in {len(train_loader)} batches of {args.batch_size}; "
      f"held out: {len(test_set)} digits")

# %% The model.
# Two hidden layers with ReLU and a little dropout; nn.Linear initialises like PyTorch.
model = nn.Sequential(
    nn.Flatten(),
    nn.Linear(28 * 28, args.hidden),
    nn.ReLU(),
    nn.Dropout(0.1),
    nn.Linear(args.hidden, args.hidden // 2),
    nn.ReLU(),
    nn.Linear(args.hidden // 2, 10),
).to(device)
print(model)
print(f"parameters: {sum(p.numel() for p in model.parameters()):,}")

# %% Loss, optimizer and schedule.
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
optimizer = tl.optim.Adam(model.parameters(), lr=args.lr)
scheduler = tl.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.epochs * len(train_loader))


def evaluate(m) -> tuple[float, np.ndarray]:
    """Accuracy on the held-out digits, and the predicted classes."""
    m.eval()
    predictions = []
    with tl.no_grad():
        for images, _ in test_loader:
            predictions.append(m(images.to(device)).argmax(dim=1).cpu().numpy())
    m.train()
    predicted = np.concatenate(predictions)
    return float((predicted == test_set.labels).mean()), predicted


# %% Training.
# One step: forward, loss, backward (autograd fills every parameter's .grad), optimizer step
# (a fused kernel per parameter group on cuda), schedule step.
interactive = sys.stdout.isatty()
start = time.perf_counter()
for epoch in range(1, args.epochs + 1):
    total, correct, seen = 0.0, 0, 0
    for step, (images, labels) in enumerate(train_loader, 1):
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        logits = model(images)
        loss = loss_fn(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(labels)
        correct += int((logits.argmax(dim=1) == labels).sum().item())
        seen += len(labels)
        if interactive:
            done = int(30 * step / len(train_loader))
            print(f"\repoch {epoch}/{args.epochs} [{'=' * done}{' ' * (30 - done)}] loss {total / seen:.4f}",
                  end="", flush=True)
    accuracy, _ = evaluate(model)
    line = (f"epoch {epoch}/{args.epochs}: train loss {total / seen:.4f}, train acc {correct / seen:.3f}, "
            f"held-out acc {accuracy:.3f}, lr {scheduler.get_last_lr()[0]:.2e}, {time.perf_counter() - start:.1f}s")
    print(("\r" + line) if interactive else line, flush=True)

accuracy, predicted = evaluate(model)
print(f"held-out accuracy: {accuracy:.4f} ({int(accuracy * len(test_set))}/{len(test_set)} digits)")

# %% Save, reload, check.
# Checkpoints use the safetensors layout (no pickle). A fresh model loads the weights and must
# make exactly the same predictions.
directory = args.checkpoint or tempfile.mkdtemp(prefix="tensorlab-mnist-")
path = os.path.join(directory, "mnist_mlp.safetensors") if os.path.isdir(directory) else directory
tl.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": args.epochs,
         "accuracy": accuracy}, path)
print(f"saved checkpoint: {path} ({os.path.getsize(path) / 1024:.0f} KiB)")
checkpoint = tl.load(path, map_location=device)
restored = nn.Sequential(
    nn.Flatten(), nn.Linear(28 * 28, args.hidden), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(args.hidden, args.hidden // 2), nn.ReLU(), nn.Linear(args.hidden // 2, 10),
).to(device)
restored.load_state_dict(checkpoint["model"])
restored_accuracy, restored_predicted = evaluate(restored)
assert np.array_equal(restored_predicted, predicted), "the reloaded model disagrees with the trained one"
print(f"reloaded model agrees on all {len(test_set)} held-out digits (accuracy {restored_accuracy:.4f})")
