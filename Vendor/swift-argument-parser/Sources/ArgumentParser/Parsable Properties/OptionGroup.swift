//===----------------------------------------------------------------------===//
//
// This source file is part of the Swift Argument Parser open source project
//
// Copyright (c) 2020 Apple Inc. and the Swift project authors
// Licensed under Apache License v2.0 with Runtime Library Exception
//
// See https://swift.org/LICENSE.txt for license information
//
//===----------------------------------------------------------------------===//

/// A wrapper that transparently includes a parsable type.
///
/// Use an option group to include a group of options, flags, or arguments
/// declared in a parsable type.
///
/// ```swift
/// struct GlobalOptions: ParsableArguments {
///     @Flag(name: .shortAndLong)
///     var verbose: Bool = false
///
///     @Argument var values: [Int]
/// }
///
/// struct Options: ParsableArguments {
///     @Option var name: String
///     @OptionGroup var globals: GlobalOptions
/// }
/// ```
///
/// The flag and positional arguments declared as part of `GlobalOptions` are
/// included when parsing `Options`.
@propertyWrapper
public struct OptionGroup<Value: ParsableArguments>: Decodable, ParsedWrapper {
  internal var _parsedValue: Parsed<Value>
  internal var _visibility: ArgumentVisibility

  // FIXME: Adding this property works around the crasher described in
  // https://github.com/apple/swift-argument-parser/issues/338
  internal var _dummy: Bool = false

  /// The title to use in the help screen for this option group.
  public var title: String = ""

  internal init(_parsedValue: Parsed<Value>) {
    self._parsedValue = _parsedValue
    self._visibility = .default
  }

  public init(from _decoder: Decoder) throws {
    // miadmin's patch (PATCHES.md): the decoder cast once, not for each use.
    let singleValueDecoder = _decoder as? SingleValueDecoder
    if let d = singleValueDecoder,
      let value = try? d.previousValue(Value.self)
    {
      self.init(_parsedValue: .value(value))
    } else if let d = singleValueDecoder,
      let value = d.untouchedGroupValue(Value.self)
    {
      // miadmin's patch (PATCHES.md): no argument of the group was given.
      self.init(_parsedValue: .value(value))
      d.saveValue(value)
    } else {
      try self.init(_decoder: _decoder)
      if let d = singleValueDecoder {
        d.saveValue(wrappedValue)
        d.rememberIfUntouched(wrappedValue)
      }
    }

    do {
      try wrappedValue.validate()
    } catch {
      throw ParserError.userValidationError(error)
    }
  }

  /// Creates a property that represents another parsable type, using the
  /// specified title and visibility.
  ///
  /// - Parameters:
  ///   - title: A title for grouping this option group's members in your
  ///     command's help screen. If `title` is empty, the members will be
  ///     displayed alongside the other arguments, flags, and options declared
  ///     by your command.
  ///   - visibility: The visibility to use for the entire option group.
  public init(
    title: String = "",
    visibility: ArgumentVisibility = .default
  ) {
    self.init(
      _parsedValue: .init { parentKey in
        var args = ArgumentSet(
          Value.self, visibility: .private, parent: parentKey)
        if !title.isEmpty {
          args.content.withEach {
            $0.help.parentTitle = title
          }
        }
        args.content = args.content.map { arg in
          arg.reducingHelpVisibility(to: visibility)
        }
        return args
      })
    self._visibility = visibility
    self.title = title
  }

  /// The value presented by this property wrapper.
  public var wrappedValue: Value {
    get {
      switch _parsedValue {
      case .value(let v):
        return v
      case .definition:
        configurationFailure(directlyInitializedError)
      }
    }
    set {
      _parsedValue = .value(newValue)
    }
  }
}

extension OptionGroup: Sendable where Value: Sendable {}

extension OptionGroup: CustomStringConvertible {
  public var description: String {
    switch _parsedValue {
    case .value(let v):
      return String(describing: v)
    case .definition:
      return "OptionGroup(*definition*)"
    }
  }
}

// Experimental use with caution
extension OptionGroup {
  @available(*, deprecated, renamed: "init(visibility:)")
  public init(_hiddenFromHelp: Bool) {
    self.init(visibility: .hidden)
  }

  /// Creates a property that represents another parsable type.
  @available(*, deprecated, renamed: "init(visibility:)")
  @_disfavoredOverload
  public init() {
    self.init(visibility: .default)
  }
}

// MARK: Deprecated

extension OptionGroup {
  @_disfavoredOverload
  @available(*, deprecated, renamed: "init(title:visibility:)")
  public init(
    visibility _visibility: ArgumentVisibility = .default
  ) {
    self.init(title: "", visibility: _visibility)
  }
}

/// miadmin's patch (PATCHES.md): a group none of whose arguments the input gave decodes to the
/// same value every time (its defaults), so that value is decoded once per group type and place
/// and reused. Decoding it went through a decoder, a keyed container and every member's property
/// wrapper, a fifth of a short line's parse. Valid under the condition of the cache of argument
/// sets (constant defaults); the group's `validate()` still runs at every parse. A command
/// (the group a parse wraps the command in) is always decoded: it may hold more than arguments.
/// The group's argument keys (nested groups' included) are kept with its value, so telling
/// whether the input gave one of them needs no argument set and no lookup per argument.
extension SingleValueDecoder {
  /// The group's value from an earlier parse, if no argument of the group came from the input.
  func untouchedGroupValue<V: ParsableArguments>(_ type: V.Type) -> V? {
    let cacheKey = UntouchedGroupKey(type: ObjectIdentifier(type), key: key)
    guard let cached = untouchedGroupCache.withLockUnchecked({ $0[cacheKey] }),
      !underlying.givesAny(of: cached.argumentKeys)
    else { return nil }
    return cached.value as? V
  }

  /// Keeps `value` for ``untouchedGroupValue(_:)`` if no argument of the group came from the input.
  func rememberIfUntouched<V: ParsableArguments>(_ value: V) {
    guard !(V.self is ParsableCommand.Type) else { return }
    let argumentKeys = ArgumentSet(V.self, visibility: .private, parent: key)
      .flatMap { $0.help.keys }
    guard !underlying.givesAny(of: argumentKeys) else { return }
    let cacheKey = UntouchedGroupKey(type: ObjectIdentifier(V.self), key: key)
    untouchedGroupCache.withLockUnchecked {
      $0[cacheKey] = UntouchedGroup(value: value, argumentKeys: argumentKeys)
    }
  }
}

extension ArgumentDecoder {
  /// Whether a value parsed for one of `argumentKeys` has a position in the input (is not only
  /// an initial value).
  fileprivate func givesAny(of argumentKeys: [InputKey]) -> Bool {
    let given = keysGivenByInput
    return !given.isEmpty && argumentKeys.contains(where: given.contains)
  }
}

private struct UntouchedGroupKey: Hashable {
  var type: ObjectIdentifier
  var key: InputKey
}

/// A group's untouched value and the keys of its arguments.
private struct UntouchedGroup {
  var value: Any
  var argumentKeys: [InputKey]
}

nonisolated(unsafe) private let untouchedGroupCache = Mutex<[UntouchedGroupKey: UntouchedGroup]>([:])
