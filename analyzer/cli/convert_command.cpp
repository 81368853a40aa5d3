// `parity convert IN OUT`: rewrites a checkpoint in another format and naming.
#include <iostream>

#include "commands.hpp"
#include "parity/analyzer/weights/convert.hpp"

namespace parity::cli {

void add_convert_command(CLI::App& app, Run& run) {
  struct Options {
    std::string input, output, map = "identity", like;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "convert",
      "Write a checkpoint in another format (.safetensors, .pth/.pt, .ckpt, .npz, .npy) and naming "
      "scheme, e.g. a PyTorch state_dict as a MindSpore checkpoint or back");
  command->add_option("input", options->input, "Checkpoint to read")->required();
  command->add_option("output", options->output, "File to write; its extension picks the format")
      ->required();
  command->add_option(
      "--map", options->map,
      "Rename by a built-in map (torch-to-mindspore, mindspore-to-torch, torch-to-modelzoo, "
      "modelzoo-to-torch, identity) or a YAML/JSON rule file (default: identity)");
  command->add_option("--like", options->like,
                      "Name the tensors after this checkpoint's, paired as parity diff pairs them "
                      "(--map then picks the pairing: auto by default); its optimizer state is "
                      "dropped, and its BatchNorm batch counters the input lacks are created as 0");
  when_chosen(command, run, [options = options] {
    const auto input = importers::open_tensor_file(options->input);
    analyzer::ConvertOptions convert_options;
    convert_options.map = options->map;
    if (!options->like.empty()) convert_options.like = options->like;
    const analyzer::ConvertReport report =
        analyzer::convert_checkpoint(*input, options->output, convert_options);
    std::cout << "wrote " << report.written << " tensors to " << options->output << " ("
              << report.renamed << " renamed) from " << options->input << " (" << input->format()
              << ")\n";
    if (!report.dropped.empty()) {
      std::cout << "dropped " << report.dropped.size() << ":\n";
      for (const std::string& line : analyzer::summarize_notes(report.dropped))
        std::cout << "  " << line << '\n';
    }
    if (!report.created.empty()) {
      std::cout << "created " << report.created.size() << ":\n";
      for (const std::string& line : analyzer::summarize_notes(report.created))
        std::cout << "  " << line << '\n';
    }
    return 0;
  });
}

}  // namespace parity::cli
