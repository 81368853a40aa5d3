#include "fixtures.hpp"

#include <QProcess>
#include <QStringList>

namespace fixture {
namespace {

QString run_python(const QStringList& arguments) {
  QProcess process;
  process.start(QStringLiteral(PARITY_PYTHON), arguments);
  if (!process.waitForFinished(60'000)) return QStringLiteral("python3 did not finish");
  if (process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0) return {};
  return QStringLiteral("python3 %1 failed:\n%2")
      .arg(arguments.join(QLatin1Char(' ')), QString::fromUtf8(process.readAllStandardError()));
}

// dump_reference.py on ResNet-18 and one fixed batch, its own options last.
QString dump_reference(const QStringList& options) {
  return run_python(QStringList{PARITY_DUMP_REFERENCE, "--model", "resnet18", "--seed", "0",
                                "--make-batch", "2,3,32,32"} +
                    options);
}

}  // namespace

QString write_checkpoints(const QString& dir) {
  const QStringList resnet18{PARITY_RESNET_CHECKPOINTS, dir, "--arch", "resnet18"};
  QString error = run_python(
      resnet18 + QStringList{"--name", "a.safetensors", "--style", "modelzoo", "--perturb",
                             QStringLiteral("%1=%2").arg(kPerturbedParameter).arg(kPerturbation)});
  if (error.isEmpty()) error = run_python(resnet18 + QStringList{"--name", "b.safetensors"});
  return error;
}

QString write_dumps(const QString& dir) {
  const QStringList one_step_forward{"--steps", "1", "--dump-what", "fwd"};
  QString error = dump_reference(
      one_step_forward + QStringList{"--save-init", dir + "/init.pth", "--dump", dir + "/b"});
  if (error.isEmpty())
    error = run_python({"-c",
                        "import sys, torch\n"
                        "state = torch.load(sys.argv[1])\n"
                        "state[sys.argv[3]].view(-1)[0] += float(sys.argv[4])\n"
                        "torch.save(state, sys.argv[2])\n",
                        dir + "/init.pth", dir + "/perturbed.pth", kPerturbedWeight,
                        QString::number(kPerturbation)});
  if (error.isEmpty())
    error = dump_reference(one_step_forward +
                           QStringList{"--weights", dir + "/perturbed.pth", "--dump", dir + "/a"});
  return error;
}

QString write_lr_dumps(const QString& dir) {
  const QStringList two_steps{"--steps", "2", "--dump-what", "fwd,params"};
  QString error = dump_reference(two_steps + QStringList{"--lr", "0.2", "--dump", dir + "/a"});
  if (error.isEmpty())
    error = dump_reference(two_steps + QStringList{"--lr", "0.1", "--dump", dir + "/b"});
  return error;
}

QString write_npy_dirs(const QString& dir) {
  return run_python(
      {"-c",
       "import os, sys\n"
       "import numpy as np\n"
       "rng = np.random.default_rng(0)\n"
       "tensors = [rng.standard_normal((4, 5)).astype(np.float32) for _ in range(6)]\n"
       "for side in 'ab':\n"
       "    os.makedirs(os.path.join(sys.argv[1], side))\n"
       "    for k, t in enumerate(tensors):\n"
       "        t = t.copy()\n"
       "        if k == 2: t[1, 2] = 1.0 + (2.0 ** -7 if side == 'a' else 0)\n"
       "        if k == 3: t[0, 4] = np.nan\n"
       "        if k == 4 and side == 'a': t[3, 1] = np.inf\n"
       "        np.save(os.path.join(sys.argv[1], side, f't{k}.npy'), t)\n"
       "np.save(os.path.join(sys.argv[1], 'a', 'u_extra.npy'), tensors[0])\n",
       dir});
}

}  // namespace fixture
