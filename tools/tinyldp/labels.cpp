// SPDX-License-Identifier: Apache-2.0
#include "labels.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace tinyldp::tools {

LabelMap::LabelMap(std::uint32_t domain) : domain_(domain) {}

LabelMap LabelMap::read(const std::string& path, std::uint32_t domain, const std::string& option) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open label file " + path + ": " + std::strerror(errno));
  LabelMap map(domain);
  std::string line;
  for (std::size_t row = 1; std::getline(in, line); ++row) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = path + ":" + std::to_string(row);
    if (map.index_.find(line) != map.index_.end())
      throw std::runtime_error(where + ": label \"" + line + "\" appears twice (a mapping numbers each label once)");
    map.add(line, where);
  }
  if (in.bad()) throw std::runtime_error("cannot read label file " + path + ": " + std::strerror(errno));
  map.fixed_ = true;
  map.origin_ = path + " (" + option + ")";
  return map;
}

std::uint32_t LabelMap::index(std::string_view label, const std::string& where) {
  const auto it = index_.find(label);
  if (it != index_.end()) return it->second;
  if (fixed_) throw std::runtime_error(where + ": label \"" + std::string(label) + "\" is not in " + origin_);
  return add(label, where);
}

std::uint32_t LabelMap::add(std::string_view label, const std::string& where) {
  if (label.find_first_of("\r\n") != std::string_view::npos)
    throw std::runtime_error(where + ": label \"" + std::string(label) +
                             "\" has a line break (a labels file holds one label per line)");
  if (labels_.size() >= domain_)
    throw std::runtime_error(where + ": more than " + std::to_string(domain_) + " distinct labels (raise --domain)");
  const auto i = static_cast<std::uint32_t>(labels_.size());
  labels_.emplace_back(label);
  index_.emplace(labels_.back(), i);
  return i;
}

collector::LabelDigest LabelMap::digest() const {
  const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  collector::LabelDigest out{};
  unsigned size = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1;
  for (const auto& l : labels_)
    ok = ok && EVP_DigestUpdate(ctx.get(), l.data(), l.size()) == 1 && EVP_DigestUpdate(ctx.get(), "\n", 1) == 1;
  ok = ok && EVP_DigestFinal_ex(ctx.get(), out.data(), &size) == 1 && size == out.size();
  if (!ok) throw std::runtime_error("cannot compute SHA-256 (OpenSSL failed)");
  return out;
}

void LabelMap::write(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write label file " + path + ": " + std::strerror(errno));
  for (const auto& l : labels_) out << l << '\n';
  out.close();
  if (!out) throw std::runtime_error("cannot write label file " + path + ": " + std::strerror(errno));
}

}  // namespace tinyldp::tools
