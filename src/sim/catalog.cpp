#include "sim/catalog.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/text_file.hpp"
#include "core/yaml_reader.hpp"

namespace infergate::sim {

// catalog.yaml's text, generated into the build tree by CMake (cmake/embed_text.cpp.in).
extern const char* const kBuiltinCatalogYaml;

namespace {

const std::string kHeading = "invalid catalog:";
constexpr double kMax = std::numeric_limits<double>::max();

template <class Spec>
const Spec* find_in(const std::deque<Spec>& specs, std::string_view id) {
  auto it = std::find_if(specs.begin(), specs.end(), [&](const Spec& s) { return s.id == id; });
  return it == specs.end() ? nullptr : &*it;
}

template <class Spec>
void put(std::deque<Spec>& specs, Spec spec) {
  auto it = std::find_if(specs.begin(), specs.end(), [&](const Spec& s) { return s.id == spec.id; });
  if (it == specs.end()) {
    specs.push_back(std::move(spec));
  } else {
    *it = std::move(spec);
  }
}

// Reads one catalog file into staging lists, so a file with problems changes nothing.
class CatalogReader {
 public:
  CatalogReader(const Catalog& base, const std::string& source_name) : base_(base), r_(source_name) {}

  void read(const YAML::Node& root) {
    if (!root.IsMap()) {
      r_.problem(root, "catalog", "must be a mapping with families, hardware, models or precisions");
      return;
    }
    r_.known_keys(root, "", {"families", "hardware", "models", "precisions"});
    if (const YAML::Node families = root["families"]) {
      if (!families.IsMap()) {
        r_.problem(families, "families", "must map a family name to its efficiency factors");
      } else {
        for (const auto& entry : families) {
          const std::string name = entry.first.Scalar();
          Efficiency e;
          read_efficiency(entry.second, "families." + name, e);
          staged_.families[name] = e;
        }
      }
    }
    each(root["hardware"], "hardware", [&](const YAML::Node& n, const std::string& f) { read_hardware(n, f); });
    each(root["models"], "models", [&](const YAML::Node& n, const std::string& f) { read_model(n, f); });
    each(root["precisions"], "precisions", [&](const YAML::Node& n, const std::string& f) { read_precision(n, f); });
  }

  // What the file holds, applied to the catalog only when it has no problems.
  struct Staged {
    std::map<std::string, Efficiency, std::less<>> families;
    std::vector<HardwareSpec> hardware;
    std::vector<ModelSpec> models;
    std::vector<PrecisionSpec> precisions;
    std::set<std::string, std::less<>> own_efficiency;  // hardware ids that set their own factors
  };

  std::vector<std::string>& problems() { return r_.problems(); }
  Staged& staged() { return staged_; }

 private:
  template <class F>
  void each(const YAML::Node& list, const std::string& field, F&& read_one) {
    if (!list) {
      return;
    }
    if (!list.IsSequence()) {
      r_.problem(list, field, "must be a list of entries");
      return;
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string f = fmt::format("{}[{}]", field, i);
      if (!list[i].IsMap()) {
        r_.problem(list[i], f, "must be a mapping");
        continue;
      }
      read_one(list[i], f);
    }
  }

  std::string id(const YAML::Node& node, const std::string& field) {
    if (!node["id"]) {
      r_.problem(node, field + ".id", "is required");
      return {};
    }
    return r_.text(node["id"], field + ".id").value_or("");
  }

  std::string text_or(const YAML::Node& node, const char* key, const std::string& field, std::string fallback) {
    if (const YAML::Node n = node[key]) {
      return r_.text(n, field + "." + key).value_or(fallback);
    }
    return fallback;
  }

  // A number that must be present, in [minimum, maximum], times `scale`.
  double need(const YAML::Node& node, const char* key, const std::string& field, double minimum, double scale = 1) {
    if (!node[key]) {
      r_.problem(node, field + "." + key, "is required");
      return 0;
    }
    return r_.number<double>(node[key], field + "." + key, minimum, kMax).value_or(0) * scale;
  }

  // `fallback` and the file's value are in the file's units.
  double optional(const YAML::Node& node, const char* key, const std::string& field, double fallback,
                  double scale = 1) {
    if (!node[key]) {
      return fallback * scale;
    }
    return r_.number<double>(node[key], field + "." + key, 0, kMax).value_or(0) * scale;
  }

  int count(const YAML::Node& node, const char* key, const std::string& field, int minimum, bool required) {
    if (!node[key]) {
      if (required) {
        r_.problem(node, field + "." + key, "is required");
      }
      return 0;
    }
    return r_.number<int>(node[key], field + "." + key, minimum, 1 << 30).value_or(0);
  }

  void read_efficiency(const YAML::Node& node, const std::string& field, Efficiency& e) {
    if (!node.IsMap()) {
      r_.problem(node, field, "must be a mapping of efficiency factors");
      return;
    }
    static const std::vector<const char*> names = [] {
      std::vector<const char*> v;
      for (const EfficiencyField& f : efficiency_fields()) {
        v.push_back(f.name);
      }
      return v;
    }();
    r_.known_keys(node, field, names);
    for (const EfficiencyField& f : efficiency_fields()) {
      if (node[f.name]) {
        e.*f.member = r_.number<double>(node[f.name], field + "." + f.name, 0, f.maximum).value_or(0) * f.unit;
      }
    }
    if (e.memory <= 0 || e.compute <= 0 || e.memory_utilization <= 0 || e.expert_efficiency <= 0) {
      r_.problem(node, field,
                 "decode_bandwidth, prefill_compute, memory_utilization and expert_efficiency must be above 0");
    }
  }

  void read_hardware(const YAML::Node& node, const std::string& field) {
    r_.known_keys(node, field,
                  {"id", "name", "family", "efficiency", "memory_gb", "bandwidth_gb_s", "tflops_16bit", "tflops_8bit",
                   "interconnect_gb_s", "interconnect_latency_us", "sram_dataflow", "source"});
    HardwareSpec h;
    h.id = id(node, field);
    h.name = text_or(node, "name", field, h.id);
    h.family = text_or(node, "family", field, "gpu");
    if (const Efficiency* e = family(h.family)) {
      h.efficiency = *e;
    } else {
      r_.problem(node["family"] ? node["family"] : node, field + ".family",
                 fmt::format("no family named '{}'", h.family));
    }
    if (const YAML::Node e = node["efficiency"]) {
      read_efficiency(e, field + ".efficiency", h.efficiency);
      staged_.own_efficiency.insert(h.id);
    }
    h.memory_bytes = need(node, "memory_gb", field, 1e-6, 1e9);
    h.memory_bw = need(node, "bandwidth_gb_s", field, 1e-6, 1e9);
    h.flops_16bit = need(node, "tflops_16bit", field, 1e-9, 1e12);
    h.flops_8bit = optional(node, "tflops_8bit", field, 0, 1e12);
    h.interconnect_bw = optional(node, "interconnect_gb_s", field, 0, 1e9);
    h.interconnect_latency_s = optional(node, "interconnect_latency_us", field, 0, 1e-6);
    if (const YAML::Node s = node["sram_dataflow"]) {
      h.sram_dataflow = r_.boolean(s, field + ".sram_dataflow").value_or(false);
    }
    h.source = text_or(node, "source", field, r_.source());
    unique_id(staged_.hardware, h.id, node, field);
    staged_.hardware.push_back(std::move(h));
  }

  void read_model(const YAML::Node& node, const std::string& field) {
    r_.known_keys(node, field,
                  {"id", "name", "params_b", "active_params_b", "experts", "experts_per_token", "layers", "hidden",
                   "heads", "kv_heads", "head_dim", "sliding_window", "sliding_layers", "max_context", "source"});
    ModelSpec m;
    m.id = id(node, field);
    m.name = text_or(node, "name", field, m.id);
    m.params = need(node, "params_b", field, 1e-6, 1e9);
    m.active_params = optional(node, "active_params_b", field, m.params / 1e9, 1e9);
    m.experts = count(node, "experts", field, 0, false);
    m.experts_per_token = count(node, "experts_per_token", field, 0, false);
    m.layers = count(node, "layers", field, 1, true);
    m.hidden = count(node, "hidden", field, 1, true);
    m.heads = count(node, "heads", field, 1, true);
    m.kv_heads = count(node, "kv_heads", field, 1, true);
    m.head_dim = count(node, "head_dim", field, 1, true);
    m.sliding_window = count(node, "sliding_window", field, 0, false);
    m.sliding_layers = count(node, "sliding_layers", field, 0, false);
    m.max_context = count(node, "max_context", field, 1, true);
    m.source = text_or(node, "source", field, r_.source());
    if (m.active_params > m.params) {
      r_.problem(node, field + ".active_params_b", "cannot exceed params_b");
    }
    if (m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
      r_.problem(node, field + ".kv_heads", "must divide heads");
    }
    if (m.sliding_layers > m.layers) {
      r_.problem(node, field + ".sliding_layers", "cannot exceed layers");
    }
    if ((m.sliding_window > 0) != (m.sliding_layers > 0)) {
      r_.problem(node, field + ".sliding_window", "give sliding_window and sliding_layers together");
    }
    if ((m.experts > 0) != (m.experts_per_token > 0) || m.experts_per_token >= std::max(m.experts, 1) ||
        (m.experts > 0 && m.active_params >= m.params)) {
      r_.problem(node, field + ".experts",
                 "a mixture of experts needs experts, experts_per_token (fewer than experts) and active_params_b "
                 "below params_b");
    }
    unique_id(staged_.models, m.id, node, field);
    staged_.models.push_back(std::move(m));
  }

  void read_precision(const YAML::Node& node, const std::string& field) {
    r_.known_keys(node, field, {"id", "weight_bytes", "kv_bytes", "eight_bit_compute", "source"});
    PrecisionSpec p;
    p.id = id(node, field);
    p.weight_bytes_per_param = need(node, "weight_bytes", field, 1e-3);
    p.kv_bytes_per_element = need(node, "kv_bytes", field, 1e-3);
    if (const YAML::Node e = node["eight_bit_compute"]) {
      p.eight_bit_compute = r_.boolean(e, field + ".eight_bit_compute").value_or(false);
    }
    p.source = text_or(node, "source", field, r_.source());
    unique_id(staged_.precisions, p.id, node, field);
    staged_.precisions.push_back(std::move(p));
  }

  // Two entries with one id in one file: the second would silently replace the first.
  template <class Spec>
  void unique_id(const std::vector<Spec>& earlier, const std::string& id, const YAML::Node& node,
                 const std::string& field) {
    if (std::any_of(earlier.begin(), earlier.end(), [&](const Spec& s) { return s.id == id; })) {
      r_.problem(node["id"], field + ".id", fmt::format("'{}' is already defined above", id));
    }
  }

  const Efficiency* family(std::string_view name) const {
    if (auto it = staged_.families.find(name); it != staged_.families.end()) {
      return &it->second;
    }
    auto it = base_.families().find(name);
    return it == base_.families().end() ? nullptr : &it->second;
  }

  const Catalog& base_;
  YamlReader r_;
  Staged staged_;
};

}  // namespace

std::span<const EfficiencyField> efficiency_fields() {
  static constexpr EfficiencyField kFields[] = {
      {"decode_bandwidth", &Efficiency::memory, 1, 1, 3, true},
      {"prefill_compute", &Efficiency::compute, 1, 1, 3, true},
      {"prefill_compute_8bit", &Efficiency::compute_8bit, 1, 1, 3, false},
      {"serial_share", &Efficiency::serial_share, 1, 1, 3, false},
      {"expert_efficiency", &Efficiency::expert_efficiency, 1, 1, 3, false},
      {"step_overhead_us", &Efficiency::step_overhead_s, 1e-6, kMax, 0, true},
      {"prefill_overhead_us", &Efficiency::prefill_overhead_s, 1e-6, kMax, 0, true},
      {"layer_overhead_us", &Efficiency::layer_overhead_s, 1e-6, kMax, 1, false},
      {"memory_utilization", &Efficiency::memory_utilization, 1, 1, 2, true},
      {"layer_latency_us", &Efficiency::layer_latency_s, 1e-6, kMax, 1, false},
      {"hop_latency_us", &Efficiency::hop_latency_s, 1e-6, kMax, 2, false},
  };
  return kFields;
}

const EfficiencyField& efficiency_field(double Efficiency::*member) {
  for (const EfficiencyField& f : efficiency_fields()) {
    if (f.member == member) {
      return f;
    }
  }
  throw std::logic_error("an efficiency factor without a catalog name");
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    Catalog c;
    c.add_yaml(kBuiltinCatalogYaml, "catalog.yaml (built in)");
    return c;
  }();
  return catalog;
}

void Catalog::add_yaml(const std::string& text, const std::string& source_name) {
  const YAML::Node root = parse_yaml(text, source_name, kHeading);
  CatalogReader reader(*this, source_name);
  reader.read(root);
  if (!reader.problems().empty()) {
    throw YamlError(kHeading, std::move(reader.problems()));
  }
  CatalogReader::Staged& staged = reader.staged();
  for (auto& [name, efficiency] : staged.families) {
    families_[name] = efficiency;
    for (auto& h : hardware_) {  // a redefined family applies to the entries already loaded
      if (h.family == name && !own_efficiency_.contains(h.id)) {
        h.efficiency = efficiency;
      }
    }
  }
  for (auto& h : staged.hardware) {
    if (staged.own_efficiency.contains(h.id)) {
      own_efficiency_.insert(h.id);
    } else {
      own_efficiency_.erase(h.id);
    }
    put(hardware_, std::move(h));
  }
  for (auto& m : staged.models) {
    put(models_, std::move(m));
  }
  for (auto& p : staged.precisions) {
    put(precisions_, std::move(p));
  }
}

void Catalog::add_file(const std::string& path) {
  add_yaml(read_text_file(path), path);
}

const HardwareSpec* Catalog::find_hardware(std::string_view id) const {
  return find_in(hardware_, id);
}
const ModelSpec* Catalog::find_model(std::string_view id) const {
  return find_in(models_, id);
}
const PrecisionSpec* Catalog::find_precision(std::string_view id) const {
  return find_in(precisions_, id);
}

}  // namespace infergate::sim
