"""Reference outputs for the data pipeline tests, made by the libraries our
C++ must agree with: torchvision 0.14 (tensor transforms, ImageFolder) and
PIL (JPEG encoding and decoding). Run with Debian's /usr/bin/python3.

  data_reference.py transforms OUT            inputs and torchvision outputs
  data_reference.py jpeg OUT                  JPEGs written by PIL and PIL's RGB decode
  data_reference.py folder ROOT               an ImageFolder tree; prints torchvision's samples
  data_reference.py fashion_eval OUT DATA N   the first N Fashion-MNIST test images
                                              through the eval transforms

Arrays are written raw: uint8 as .u8, float32 little-endian as .f32, in
torch's CHW order (images) unless named .hwc; shapes are printed to stdout as
"name d0 d1 ..." lines.
"""
import gzip
import os
import sys

import numpy as np


def save(out, name, array):
    array = np.ascontiguousarray(array)
    suffix = ".u8" if array.dtype == np.uint8 else ".f32"
    if array.dtype != np.uint8:
        array = array.astype("<f4")
    array.tofile(os.path.join(out, name + suffix))
    print(name, *array.shape)


def transforms(out):
    import torch
    import torchvision.transforms as T
    import torchvision.transforms.functional as F

    torch.manual_seed(0)
    imagenet = dict(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])

    def to_float(img):  # what ToTensor does to an 8-bit image: x / 255 in float32
        return F.convert_image_dtype(img, torch.float32)

    def emit(name, tensor):
        save(out, name, tensor.numpy())

    # A landscape image shrunk and center-cropped (the ImageNet eval path).
    a = torch.randint(0, 256, (3, 37, 53), dtype=torch.uint8)
    emit("a", a)
    x = to_float(a)
    emit("a_resize24", F.resize(x, 24, antialias=False))
    emit("a_eval", F.normalize(F.center_crop(F.resize(x, 24, antialias=False), [20, 20]), **imagenet))
    emit("a_resized_crop", F.resized_crop(x, 5, 7, 20, 30, [16, 16], antialias=False))
    emit("a_resized_crop_up", F.resized_crop(x, 3, 11, 9, 13, [32, 32], antialias=False))
    emit("a_pad_crop", F.crop(F.pad(x, 4), 2, 9, 32, 32))
    emit("a_flip", F.hflip(x))
    emit("a_normalize", F.normalize(x, **imagenet))

    # A portrait image enlarged; a center crop larger than the image (padding).
    b = torch.randint(0, 256, (3, 13, 9), dtype=torch.uint8)
    emit("b", b)
    y = to_float(b)
    emit("b_resize20", F.resize(y, 20, antialias=False))
    emit("b_center16", F.center_crop(y, [16, 16]))
    emit("b_center8", F.center_crop(y, [8, 8]))

    # A photo-sized image through Resize(256) + CenterCrop(224) + Normalize.
    c = torch.randint(0, 256, (3, 375, 500), dtype=torch.uint8)
    emit("c", c)
    z = to_float(c)
    emit("c_eval", T.Compose([T.Resize(256, antialias=False), T.CenterCrop(224), T.Normalize(**imagenet)])(z))
    emit("c_resized_crop", F.resized_crop(z, 40, 61, 301, 222, [224, 224], antialias=False))

    # A Fashion-MNIST-like gray image: pad to 32, normalize, three channels.
    g = torch.randint(0, 256, (1, 28, 28), dtype=torch.uint8)
    emit("g", g)
    w = to_float(g)
    emit("g_eval", F.normalize(F.center_crop(w, [32, 32]), [0.2860], [0.3530]).expand(3, -1, -1))
    emit("g_train_box", F.hflip(F.crop(F.pad(F.center_crop(w, [32, 32]), 4), 7, 1, 32, 32)))

    # RandomResizedCrop's fallback is deterministic: boxes no try can fit.
    for name, (h, wd) in {"wide": (4, 200), "tall": (200, 4)}.items():
        i, j, hh, ww = T.RandomResizedCrop.get_params(torch.zeros(3, h, wd), [0.08, 1.0], [3 / 4, 4 / 3])
        print("fallback_" + name, i, j, hh, ww)


def jpeg(out):
    from PIL import Image

    rng = np.random.default_rng(0)
    h, w = 45, 67  # not multiples of 8 or 16: partial blocks and MCUs
    yy, xx = np.mgrid[0:h, 0:w]
    smooth = np.stack([xx * 3.5, yy * 5.0, (xx + yy) * 2.0], -1)
    rgb = np.clip(smooth + rng.normal(0, 12, smooth.shape), 0, 255).astype(np.uint8)
    gray = rgb[..., 1].copy()
    cmyk = np.concatenate([rgb, (255 - rgb[..., :1] // 2)], -1)

    images = {
        "rgb420": (Image.fromarray(rgb, "RGB"), dict(quality=90)),
        "rgb444": (Image.fromarray(rgb, "RGB"), dict(quality=95, subsampling=0)),
        "progressive": (Image.fromarray(rgb, "RGB"), dict(quality=85, progressive=True)),
        "gray": (Image.fromarray(gray, "L"), dict(quality=90)),
        "cmyk": (Image.fromarray(cmyk, "CMYK"), dict(quality=90)),
    }
    for name, (image, options) in images.items():
        path = os.path.join(out, name + ".jpg")
        image.save(path, **options)
        with Image.open(path) as decoded:
            save(out, name + ".hwc", np.asarray(decoded.convert("RGB")))


def folder(root):
    from PIL import Image
    import torchvision.datasets as datasets

    rng = np.random.default_rng(1)
    files = [
        "n02/b.JPEG", "n02/a.jpeg", "n02/sub-dir/c.jpg", "n02/sub/z.JPG", "n02/sub/a.jpg",
        "n02/zz.jpg", "n02/notes.txt",
        "n01/x.jpg", "n01/B.jpg", "n01/a.jpg",
        "Cats/only.jpg",
    ]
    for index, name in enumerate(files):
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if name.endswith(".txt"):
            with open(path, "w") as f:
                f.write("not an image\n")
            continue
        size = (8 + index, 6 + 2 * index)
        pixels = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
        Image.fromarray(pixels, "RGB").save(path, quality=90)
    dataset = datasets.ImageFolder(root)
    print("classes", *dataset.classes)
    for path, label in dataset.samples:
        print("sample", label, os.path.relpath(path, root))


def fashion_eval(out, data, count):
    import torch
    import torchvision.transforms.functional as F

    with gzip.open(os.path.join(data, "t10k-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:count]
    with gzip.open(os.path.join(data, "t10k-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)[:count]
    batch = []
    for image in images:
        x = F.convert_image_dtype(torch.from_numpy(image.copy()), torch.float32)
        x = F.normalize(F.center_crop(x, [32, 32]), [0.2860], [0.3530]).expand(3, -1, -1)
        batch.append(x)
    save(out, "images", torch.stack(batch).numpy())
    print("labels", *labels.tolist())


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "transforms":
        transforms(sys.argv[2])
    elif command == "jpeg":
        jpeg(sys.argv[2])
    elif command == "folder":
        folder(sys.argv[2])
    elif command == "fashion_eval":
        fashion_eval(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("unknown command " + command)
