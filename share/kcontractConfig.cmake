# kcontractConfig.cmake — find_package(kcontract) for a project with its own
# CUDA kernels (docs/own-kernels.md). Installed by kcontract's `make install`
# as PREFIX/lib/cmake/kcontract/; relocatable (paths from this file's place).
#
# Imported targets:
#   kcontract::kcontract   libkcontract.so (the harness; kcontract.h)
#   kcontract::static      libkcontract.a
#   kcontract::main        libkcontract_main.a: main(), a whole kcontract
#                          (run, list, merge, every option) over the
#                          contracts linked with it
# Function:
#   kcontract_add_suite(<name>
#       CONTRACTS <file.c>...      contracts and suites (KC_CONTRACT, KC_SUITE)
#       KERNELS <file.cu>...       modules, and lib<name>.cu library kernels
#       [NVCC_FLAGS <flag>...]     more nvcc flags for every kernel
#       [STATIC])                  link libkcontract.a instead of the .so
#   builds executable <name>: each <module>.cu becomes a fatbin (sm_90 SASS
#   and compute_90 PTX; KCONTRACT_CUDA_ARCH overrides), once clean and once
#   per KC_CONTROL_<control> in its source, embedded in an object that
#   registers it; *_ref.cu (device references) with -fmad=false. Each
#   lib<name>.cu becomes lib/lib<name>.so and lib/lib<name>@<control>.so next
#   to the executable (where it looks first; KC_LIBDIR overrides), linked
#   with ${KCONTRACT_LIBS_lib<name>} (e.g. -lcublas).
# Settings: KCONTRACT_NVCC (default: nvcc on PATH, then $CUDA_HOME/bin,
# /usr/local/cuda/bin), KCONTRACT_CUDA_ARCH, KCONTRACT_FAKE_IMAGES (ON: each
# module's image is kcontract's fake driver's text, for testing a build
# without a GPU through KC_LIBCUDA=libfake_cuda.so).
cmake_minimum_required(VERSION 3.20)
get_filename_component(_kc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(kcontract_INCLUDE_DIR "${_kc_prefix}/include")
set(kcontract_EMBED_SOURCE "${_kc_prefix}/share/kcontract/kcontract_embed.c")
set(kcontract_FOUND TRUE)

if(NOT TARGET kcontract::kcontract)
  add_library(kcontract::kcontract SHARED IMPORTED)
  set_target_properties(kcontract::kcontract PROPERTIES
    IMPORTED_LOCATION "${_kc_prefix}/lib/libkcontract.so"
    INTERFACE_INCLUDE_DIRECTORIES "${kcontract_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "dl;m;pthread")
  add_library(kcontract::static STATIC IMPORTED)
  set_target_properties(kcontract::static PROPERTIES
    IMPORTED_LOCATION "${_kc_prefix}/lib/libkcontract.a"
    INTERFACE_INCLUDE_DIRECTORIES "${kcontract_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "dl;m;pthread")
  add_library(kcontract::main STATIC IMPORTED)
  set_target_properties(kcontract::main PROPERTIES
    IMPORTED_LOCATION "${_kc_prefix}/lib/libkcontract_main.a"
    INTERFACE_INCLUDE_DIRECTORIES "${kcontract_INCLUDE_DIR}")
endif()

if(NOT KCONTRACT_NVCC)
  find_program(KCONTRACT_NVCC nvcc HINTS ENV CUDA_HOME PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
endif()
set(KCONTRACT_CUDA_ARCH "-gencode;arch=compute_90,code=[sm_90,compute_90]" CACHE STRING
    "nvcc's -gencode flags for kcontract kernels")

# The control names in a .cu file: every KC_CONTROL_<name> it mentions.
function(_kcontract_controls out file)
  file(STRINGS "${file}" lines REGEX "KC_CONTROL_[A-Za-z0-9_]+")
  set(names "")
  foreach(line IN LISTS lines)
    string(REGEX MATCHALL "KC_CONTROL_[A-Za-z0-9_]+" hits "${line}")
    foreach(h IN LISTS hits)
      string(REGEX REPLACE "^KC_CONTROL_" "" h "${h}")
      list(APPEND names "${h}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES names)
  list(SORT names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

function(kcontract_add_suite name)
  cmake_parse_arguments(KC "STATIC" "" "CONTRACTS;KERNELS;NVCC_FLAGS" ${ARGN})
  if(NOT KCONTRACT_NVCC)
    message(FATAL_ERROR "kcontract_add_suite(${name}): nvcc not found (set KCONTRACT_NVCC or CUDA_HOME)")
  endif()
  if(NOT KC_CONTRACTS)
    message(FATAL_ERROR "kcontract_add_suite(${name}): no CONTRACTS (the .c files with KC_CONTRACT)")
  endif()
  get_filename_component(cuda_lib "${KCONTRACT_NVCC}" DIRECTORY)
  get_filename_component(cuda_lib "${cuda_lib}/../lib64" ABSOLUTE)
  set(work "${CMAKE_CURRENT_BINARY_DIR}/${name}.kcontract")
  set(libdir "${CMAKE_CURRENT_BINARY_DIR}/lib")
  set(embeds "")
  set(libs "")
  foreach(cu IN LISTS KC_KERNELS)
    get_filename_component(src "${cu}" ABSOLUTE)
    get_filename_component(mod "${cu}" NAME_WE)
    _kcontract_controls(controls "${src}")
    set(flags ${KCONTRACT_CUDA_ARCH} -O3 -lineinfo -std=c++17 "-I${kcontract_INCLUDE_DIR}" ${KC_NVCC_FLAGS})
    if(mod MATCHES "_ref$")
      list(APPEND flags -fmad=false)   # device references round as the host reference does
    endif()
    foreach(control "" ${controls})
      if(control STREQUAL "")
        set(variant "${mod}")
        set(define "")
      else()
        set(variant "${mod}@${control}")
        set(define "-DKC_CONTROL_${control}")
      endif()
      if(mod MATCHES "^lib")
        set(so "${libdir}/${variant}.so")
        add_custom_command(OUTPUT "${so}"
          COMMAND "${CMAKE_COMMAND}" -E make_directory "${libdir}"
          COMMAND "${KCONTRACT_NVCC}" ${flags} ${define} -Xcompiler -fPIC -shared -cudart shared
                  "-L${cuda_lib}" "-Xlinker" "-rpath=${cuda_lib}" -o "${so}" "${src}" ${KCONTRACT_LIBS_${mod}}
          DEPENDS "${src}" "${kcontract_INCLUDE_DIR}/kcontract.h"
          COMMENT "kcontract: library kernel ${variant}.so" VERBATIM)
        list(APPEND libs "${so}")
      else()
        set(fatbin "${work}/${variant}.fatbin")
        if(KCONTRACT_FAKE_IMAGES)   # the fake driver's image: no nvcc, no GPU (kcontract's tests)
          if(control STREQUAL "")
            file(WRITE "${fatbin}" "KCFAKE ${mod} -\n")
          else()
            file(WRITE "${fatbin}" "KCFAKE ${mod} ${control}\n")
          endif()
        else()
        add_custom_command(OUTPUT "${fatbin}"
          COMMAND "${CMAKE_COMMAND}" -E make_directory "${work}"
          COMMAND "${KCONTRACT_NVCC}" ${flags} ${define} -fatbin -MD -MF "${fatbin}.d" -o "${fatbin}" "${src}"
          DEPENDS "${src}" DEPFILE "${fatbin}.d"
          COMMENT "kcontract: fatbin ${variant}" VERBATIM)
        endif()
        set(embed "${work}/${variant}.embed.c")
        if(control STREQUAL "")
          set(cdef "")
        else()
          set(cdef "#define KC_EMBED_CONTROL \"${control}\"\n")
        endif()
        file(WRITE "${embed}.new" "/* generated by kcontract_add_suite: embeds ${variant}.fatbin */\n"
             "#define KC_EMBED_FILE \"${fatbin}\"\n#define KC_EMBED_MODULE \"${mod}\"\n${cdef}"
             "#include \"${kcontract_EMBED_SOURCE}\"\n")
        file(COPY_FILE "${embed}.new" "${embed}" ONLY_IF_DIFFERENT)
        set_source_files_properties("${embed}" PROPERTIES OBJECT_DEPENDS "${fatbin}" LANGUAGE C)
        list(APPEND embeds "${embed}")
      endif()
    endforeach()
  endforeach()
  add_executable(${name} ${KC_CONTRACTS} ${embeds})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" LINKER_LANGUAGE C)
  if(KC_STATIC)
    target_link_libraries(${name} PRIVATE kcontract::main kcontract::static)
  else()
    target_link_libraries(${name} PRIVATE kcontract::main kcontract::kcontract)
  endif()
  if(libs)
    add_custom_target(${name}_library_kernels ALL DEPENDS ${libs})
    add_dependencies(${name} ${name}_library_kernels)
  endif()
endfunction()
