// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {ISwappaPairV1, SwapPayload} from "./Interfaces.sol";

/// A router with exactly the interface and semantics of the real one on Celo
/// (`swapExactInputForOutput` 0x9acc65a9, `getOutputAmount` 0xe2f46a00), so the daemon encodes the same bytes
/// for the devnet as for mainnet. Which `Swap` event the deployed router emits is not public: the published ABI
/// has a 6-field one, the public source a 7-field one with an indexed `tenantId`. A deploy option picks one.
contract DevnetRouter is Ownable {
    using SafeERC20 for IERC20;

    struct Partner {
        address admin;
        uint256 feeNumerator;
    }

    uint256 public constant FEE_DENOMINATOR = 1e10;
    uint256 public constant MAX_PARTNER_FEE = 5e8; // 5%

    event Swap(
        address indexed sender,
        address to,
        address indexed input,
        address indexed output,
        uint256 inputAmount,
        uint256 outputAmount
    );
    /// The public source's version: `output` unindexed, the verified partner id indexed as `tenantId`.
    event Swap(
        address indexed sender,
        address to,
        address indexed input,
        address output,
        uint256 inputAmount,
        uint256 outputAmount,
        uint256 indexed tenantId
    );
    event PartnerSet(uint256 indexed partner, address admin, uint256 feeNumerator);
    /// The real router's event for a partner's fee change (its public source), which a routing service follows.
    event FeeChanged(uint256 indexed partnerId, address indexed initiator, bool indexed isAdminFee, uint256 oldFee, uint256 newFee);
    event AdminSignerSet(address signer);

    /// Signs `(partner, deadline, tokenIn, tokenOut)` for quotes made with a partner's API key.
    address public adminSigner;
    mapping(uint256 => Partner) public partners;
    /// True: emit the public source's 7-field `Swap`; false: the published ABI's 6-field one.
    bool public immutable emitsTenantSwap;

    constructor(address owner_, address adminSigner_, bool emitsTenantSwap_) Ownable(owner_) {
        adminSigner = adminSigner_;
        emitsTenantSwap = emitsTenantSwap_;
        emit AdminSignerSet(adminSigner_);
    }

    function setAdminSigner(address signer) external onlyOwner {
        adminSigner = signer;
        emit AdminSignerSet(signer);
    }

    function setPartner(uint256 partner, address admin, uint256 feeNumerator) external onlyOwner {
        require(partner != 0, "MinimaRouter: partner 0 takes no fee");
        require(feeNumerator <= MAX_PARTNER_FEE, "MinimaRouter: fee too high");
        uint256 oldFee = getPartnerFee(partner);
        partners[partner] = Partner(admin, feeNumerator);
        emit PartnerSet(partner, admin, feeNumerator);
        emit FeeChanged(partner, msg.sender, false, oldFee, getPartnerFee(partner));
    }

    /// The real router's public getter (its public source): the fee numerator, over FEE_DENOMINATOR, taken from a
    /// partner's swaps. Here a partner without an admin is paid nothing, so its fee reads 0.
    function getPartnerFee(uint256 partnerId) public view returns (uint256) {
        Partner memory partner = partners[partnerId];
        return partner.admin == address(0) ? 0 : partner.feeNumerator;
    }

    function swapExactInputForOutput(SwapPayload calldata details) external returns (uint256 outputAmount) {
        require(details.deadline >= block.timestamp, "SwappaRouter: Expired!");
        require(details.path.length == details.pairs.length + 1, "MinimaRouter: Path and Pairs mismatch!");
        require(details.pairs.length == details.extras.length, "MinimaRouter: Pairs and Extras mismatch!");
        require(details.pairs.length > 0, "MinimaRouter: Must have at least one pair!");

        address input = details.path[0];
        address output = details.path[details.path.length - 1];
        _pullInput(input, details.pairs[0], details.inputAmount);

        uint256 balanceBefore = IERC20(output).balanceOf(address(this));
        for (uint256 i = 0; i < details.pairs.length; i++) {
            address next = i + 1 < details.pairs.length ? details.pairs[i + 1] : address(this);
            ISwappaPairV1(details.pairs[i]).swap(details.path[i], details.path[i + 1], next, details.extras[i]);
        }
        uint256 received = IERC20(output).balanceOf(address(this)) - balanceBefore;

        uint256 partner = verifiedPartner(details, input, output);
        outputAmount = received - _payPartnerFee(partner, output, received);
        // Positive slippage stays in the router: the caller gets at most what it was quoted.
        if (outputAmount > details.expectedOutputAmount) {
            outputAmount = details.expectedOutputAmount;
        }
        require(outputAmount >= details.minOutputAmount, "MinimaRouter: Insufficient output amount!");

        IERC20(output).safeTransfer(details.to, outputAmount);
        if (emitsTenantSwap) {
            emit Swap(msg.sender, details.to, input, output, details.inputAmount, outputAmount, partner);
        } else {
            emit Swap(msg.sender, details.to, input, output, details.inputAmount, outputAmount);
        }
    }

    function getOutputAmount(address[] calldata path, address[] calldata pairs, bytes[] calldata extras, uint256 inputAmount)
        external
        view
        returns (uint256 outputAmount)
    {
        require(path.length == pairs.length + 1, "MinimaRouter: Path and Pairs mismatch!");
        require(pairs.length == extras.length, "MinimaRouter: Pairs and Extras mismatch!");
        outputAmount = inputAmount;
        for (uint256 i = 0; i < pairs.length; i++) {
            outputAmount = ISwappaPairV1(pairs[i]).getOutputAmount(path[i], path[i + 1], outputAmount, extras[i]);
        }
    }

    /// The partner a payload is entitled to: its own id when the admin signer signed it, else 0.
    function verifiedPartner(SwapPayload calldata details, address tokenIn, address tokenOut)
        public
        view
        returns (uint256)
    {
        if (details.partner == 0 || details.sig.length != 65) return 0;
        bytes32 digest = MessageHashUtils.toEthSignedMessageHash(
            keccak256(abi.encodePacked(details.partner, details.deadline, tokenIn, tokenOut))
        );
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, details.sig);
        if (err != ECDSA.RecoverError.NoError || signer != adminSigner) return 0;
        return details.partner;
    }

    function _payPartnerFee(uint256 partnerId, address output, uint256 received) private returns (uint256 fee) {
        Partner memory partner = partners[partnerId];
        if (partner.admin == address(0)) return 0;
        fee = (received * partner.feeNumerator) / FEE_DENOMINATOR;
        if (fee > 0) IERC20(output).safeTransfer(partner.admin, fee);
    }

    /// Moves the input from the caller straight into the first pair adapter, with the real router's revert string.
    function _pullInput(address token, address firstPair, uint256 amount) private {
        (bool ok, bytes memory returned) =
            token.call(abi.encodeCall(IERC20.transferFrom, (msg.sender, firstPair, amount)));
        require(
            ok && (returned.length == 0 || abi.decode(returned, (bool))), "MinimaRouter: Initial transferFrom failed!"
        );
    }
}
