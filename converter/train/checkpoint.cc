#include "train/checkpoint.h"

#include <algorithm>
#include <stdexcept>

#include "pocketmt/model_file.h"  // shape_string

namespace pmt::train {

namespace {

bool is_optimizer_tensor(std::string_view name) {
  return name.starts_with(kMomentPrefixM) || name.starts_with(kMomentPrefixV);
}

// The tensor `name` of `file` when present with the shape of `info`; otherwise null and *err says why.
const StTensor* matching_tensor(const StFile& file, const std::string& name, const TensorInfo& info, std::string* err) {
  const StTensor* t = file.find(name);
  if (!t) {
    *err = "missing tensor " + name;
  } else if (t->shape != info.shape) {
    *err = "tensor " + name + " has shape " + shape_string(t->shape) + ", the model needs " + shape_string(info.shape);
    t = nullptr;
  }
  return t;
}

// Copies "<prefix><name>" of every model tensor into blob, after checking them all (so a bad
// file changes nothing).
std::string copy_tensors(const StFile& file, const Transformer& model, std::string_view prefix, float* blob) {
  std::vector<const StTensor*> found;
  for (const TensorInfo& info : model.tensors()) {
    std::string err;
    found.push_back(matching_tensor(file, std::string(prefix) + info.name, info, &err));
    if (!found.back()) return err;
  }
  for (size_t i = 0; i < found.size(); ++i)
    std::copy(found[i]->data.begin(), found[i]->data.end(), blob + model.tensors()[i].offset);
  return {};
}

}  // namespace

std::string write_checkpoint(const std::string& path, const Transformer& model, const Adam* adam,
                             const std::map<std::string, std::string>& extra) {
  StFile file;
  file.metadata = config_to_metadata(model.config());
  file.metadata.insert(extra.begin(), extra.end());
  auto add = [&file, &model](const std::string& prefix, const float* blob) {
    for (const TensorInfo& info : model.tensors()) {
      file.tensors.push_back({prefix + info.name, info.shape,
                              std::vector<float>(blob + info.offset, blob + info.offset + info.numel)});
    }
  };
  add("", model.params());
  if (adam) {
    add(std::string(kMomentPrefixM), adam->m());
    add(std::string(kMomentPrefixV), adam->v());
    file.metadata[std::string(kOptimizerStepKey)] = std::to_string(adam->steps());
  }
  return write_safetensors(path, file);
}

std::string read_checkpoint(const std::string& path, StFile* file, ModelConfig* config) {
  if (std::string err = read_safetensors(path, file); !err.empty()) return err;
  if (std::string err = config_from_metadata(file->metadata, config); !err.empty()) return path + ": " + err;
  return {};
}

std::string load_params(const StFile& file, Transformer* model) {
  for (const StTensor& t : file.tensors) {
    if (!is_optimizer_tensor(t.name) && !model->find(t.name)) return "unexpected tensor " + t.name;
  }
  return copy_tensors(file, *model, "", model->params());
}

std::string load_optimizer(const StFile& file, const Transformer& model, Adam* adam) {
  const auto step = file.metadata.find(std::string(kOptimizerStepKey));
  if (step == file.metadata.end()) return "no optimizer state (metadata " + std::string(kOptimizerStepKey) + ")";
  int64_t t = 0;
  try {
    size_t used = 0;
    t = std::stoll(step->second, &used);
    if (used != step->second.size() || t < 0) throw std::invalid_argument("");
  } catch (const std::exception&) {
    return "bad " + std::string(kOptimizerStepKey) + " '" + step->second + "'";
  }
  if (std::string err = copy_tensors(file, model, kMomentPrefixM, adam->m()); !err.empty()) return err;
  if (std::string err = copy_tensors(file, model, kMomentPrefixV, adam->v()); !err.empty()) return err;
  adam->set_steps(t);
  return {};
}

std::string average_checkpoints(const std::vector<std::string>& paths, const std::string& out_path) {
  if (paths.empty()) return "no checkpoints to average";
  StFile out;
  ModelConfig config;
  std::vector<std::vector<double>> sums;
  std::string sources;
  for (size_t k = 0; k < paths.size(); ++k) {
    StFile file;
    ModelConfig c;
    if (std::string err = read_checkpoint(paths[k], &file, &c); !err.empty()) return err;
    std::erase_if(file.tensors, [](const StTensor& t) { return is_optimizer_tensor(t.name); });
    if (k == 0) {
      config = c;
      for (const StTensor& t : file.tensors) {
        out.tensors.push_back({t.name, t.shape, {}});
        sums.emplace_back(t.data.begin(), t.data.end());
      }
    } else {
      if (!(c == config)) return paths[k] + ": model config differs from " + paths[0];
      if (file.tensors.size() != out.tensors.size()) return paths[k] + ": tensor list differs from " + paths[0];
      for (size_t i = 0; i < file.tensors.size(); ++i) {
        const StTensor& t = file.tensors[i];
        if (t.name != out.tensors[i].name || t.shape != out.tensors[i].shape)
          return paths[k] + ": tensor " + t.name + " does not match " + paths[0];
        for (size_t j = 0; j < t.data.size(); ++j) sums[i][j] += t.data[j];
      }
    }
    sources += (k ? "," : "") + paths[k];
  }
  const double inv = 1.0 / static_cast<double>(paths.size());
  for (size_t i = 0; i < out.tensors.size(); ++i) {
    out.tensors[i].data.resize(sums[i].size());
    for (size_t j = 0; j < sums[i].size(); ++j) out.tensors[i].data[j] = static_cast<float>(sums[i][j] * inv);
  }
  out.metadata = config_to_metadata(config);
  out.metadata["averaged_from"] = sources;
  return write_safetensors(out_path, out);
}

}  // namespace pmt::train
